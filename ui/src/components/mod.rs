//! Pieces the pages share: the resource wrapper [`Loaded`] with the house's loading and error
//! rendering, and the small formatting and link helpers every list uses.

mod links;
mod loaded;

pub use links::{context_link, session_link, short_time};
pub use loaded::Loaded;
