//! One module per view. A view's module holds its route component, which composes the view's
//! parts; a big view is a folder whose `mod.rs` is that route and whose other files are its
//! components. What several views share lives in `crate::components`.

pub mod contexts;
pub mod heads;
pub mod health;
pub mod home;
pub mod inspector;
pub mod knowledge;
pub mod library;
pub mod lineage;
pub mod reconstruct;
pub mod review;
pub mod search;
pub mod sessions;
pub mod settings;
pub mod timeline;
pub mod topics;
