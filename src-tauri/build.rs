//! Build script of the desktop app: generates the Tauri context from the root `tauri.conf.json`
//! (beside the root `Cargo.toml`, which is this package's manifest) and the ACL from the
//! hand-written permissions and capabilities under `src-tauri/`.

fn main() {
    println!("cargo:rerun-if-changed=src-tauri/capabilities");
    println!("cargo:rerun-if-changed=src-tauri/permissions");
    // `generate_context!` embeds `ui/dist`, but nothing tells cargo; without this line a fresh
    // `trunk build` would not reach the binary until some Rust source changed.
    println!("cargo:rerun-if-changed=ui/dist");
    let attributes = tauri_build::Attributes::new()
        .capabilities_path_pattern("src-tauri/capabilities/*.json")
        .app_manifest(
            tauri_build::AppManifest::new()
                .permissions_path_pattern("src-tauri/permissions/*.toml"),
        );
    if let Err(error) = tauri_build::try_build(attributes) {
        panic!("tauri build script failed: {error:#}");
    }
}
