//! Pieces the pages share: the resource wrapper [`Loaded`] with the house's loading and error
//! rendering, the small formatting and link helpers every list uses, long ids shown short with a
//! copy button, and commands shown with one.

mod copy;
mod dialog;
mod ids;
mod links;
mod loaded;

pub use copy::copy_text;
pub use dialog::Modal;
pub use ids::{copy_id, short_id};
pub use links::{context_link, harness_name, lineage_link, session_link, short_time};
pub use loaded::Loaded;
