//! Typed async wrappers around Tauri's `invoke`, one per shell command. Names and types come from
//! `elnor-types`, so the UI and the shell cannot disagree about the wire.

use elnor_types::{
    CommandError, ContinuityMode, ErrorKind, SetModeRequest, Settings, StoreStatus, commands,
};
use serde::{Serialize, de::DeserializeOwned};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    // `withGlobalTauri` exposes the IPC bridge here; `catch` turns a rejected promise into `Err`.
    #[wasm_bindgen(js_namespace = ["window", "__TAURI__", "core"], js_name = invoke, catch)]
    async fn tauri_invoke(cmd: &str, args: JsValue) -> Result<JsValue, JsValue>;
}

fn bridge_error(message: String) -> CommandError {
    CommandError {
        kind: ErrorKind::Storage,
        message,
    }
}

async fn call<A: Serialize, R: DeserializeOwned>(cmd: &str, args: &A) -> Result<R, CommandError> {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    let args = args
        .serialize(&serializer)
        .map_err(|e| bridge_error(format!("cannot encode the request: {e}")))?;
    match tauri_invoke(cmd, args).await {
        Ok(value) => serde_wasm_bindgen::from_value(value)
            .map_err(|e| bridge_error(format!("unexpected reply to {cmd}: {e}"))),
        Err(error) => Err(
            serde_wasm_bindgen::from_value::<CommandError>(error.clone()).unwrap_or_else(|_| {
                bridge_error(
                    error
                        .as_string()
                        .unwrap_or_else(|| format!("{cmd} failed: {error:?}")),
                )
            }),
        ),
    }
}

#[derive(Serialize)]
struct NoArgs {}

#[derive(Serialize)]
struct Request<T> {
    request: T,
}

pub async fn store_status() -> Result<StoreStatus, CommandError> {
    call(commands::STORE_STATUS, &NoArgs {}).await
}

pub async fn get_settings() -> Result<Settings, CommandError> {
    call(commands::GET_SETTINGS, &NoArgs {}).await
}

pub async fn set_continuity_mode(mode: ContinuityMode) -> Result<Settings, CommandError> {
    call(
        commands::SET_CONTINUITY_MODE,
        &Request {
            request: SetModeRequest { mode },
        },
    )
    .await
}
