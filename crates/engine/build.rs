//! The graph schema is embedded from the workspace's `migrations/` folder; a change there must
//! rebuild the engine.
fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
}
