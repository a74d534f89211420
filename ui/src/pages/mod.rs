//! One module per view; the helpers they share live in `crate::components`.

pub mod contexts;
pub mod home;
pub mod inspector;
pub mod knowledge;
pub mod review;
pub mod sessions;
pub mod settings;
pub mod timeline;
