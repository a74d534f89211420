//! The desktop app's entry point; everything happens in [`elnor_desktop::run`].

// Without this a console window would open next to the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    elnor_desktop::run();
}
