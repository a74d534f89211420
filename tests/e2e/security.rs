//! The desktop shell's half of the security suite (issue 20, part 6; the CLI's and the MCP
//! server's half is `crates/cli/tests/security.rs`): the webview loads nothing from outside the
//! app, whatever a page tries; it may call the app's own commands and no other; and the commands
//! that take an id or a path refuse hostile ones clearly, never showing a file outside the store.

use std::io::Read as _;
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::harness::{App, Check, Ui, ensure, ensure_eq};
use crate::world::World;

/// What the file outside the store holds: no reply may contain it.
const SENTINEL: &str = "ELNOR-SENTINEL-5d81e2-outside-the-store";

/// A local HTTP endpoint that counts every connection made to it and answers each with a small
/// page: if the webview reached it, the count says so.
fn recorder() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&hits);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            counted.fetch_add(1, Ordering::SeqCst);
            let mut stream = stream;
            let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = std::io::Write::write_all(
                &mut stream,
                b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nAccess-Control-Allow-Origin: *\r\n\r\nhi",
            );
        }
    });
    (url, hits)
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn the_webview_loads_nothing_from_outside_the_app() {
    let world = World::new();
    let (url, hits) = recorder();
    // The recorder counts a real request, so a zero below means the webview sent none.
    let _ = std::net::TcpStream::connect(url.trim_start_matches("http://")).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while hits.load(Ordering::SeqCst) == 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        hits.load(Ordering::SeqCst),
        1,
        "the recorder counts requests"
    );
    hits.store(0, Ordering::SeqCst);

    App::with(&world, async |ui| {
        ui.find("#nav-home").await?;
        // Everything a page could try to reach the network with: a fetch, an XHR, an image, a
        // script, a style sheet, a frame, a web socket, a beacon and a font.
        let tried = ui
            .js_async(&format!(
                "const done = arguments[0];
                 const url = '{url}';
                 const results = [];
                 const add = (kind, el) => {{ document.body.appendChild(el); results.push(kind); }};
                 fetch(url + '/fetch').then(() => results.push('fetch answered'),
                                             () => results.push('fetch refused'));
                 try {{
                   const x = new XMLHttpRequest(); x.open('GET', url + '/xhr'); x.send();
                 }} catch (e) {{}}
                 const img = document.createElement('img'); img.src = url + '/img'; add('img', img);
                 const s = document.createElement('script'); s.src = url + '/script.js';
                 add('script', s);
                 const l = document.createElement('link'); l.rel = 'stylesheet';
                 l.href = url + '/style.css'; add('link', l);
                 const f = document.createElement('iframe'); f.src = url + '/frame';
                 add('iframe', f);
                 try {{ new WebSocket(url.replace('http', 'ws') + '/ws'); }} catch (e) {{}}
                 try {{ navigator.sendBeacon(url + '/beacon', 'x'); }} catch (e) {{}}
                 const st = document.createElement('style');
                 st.textContent = \"@font-face {{ font-family: x; src: url('\" + url +
                   \"/font.woff'); }} body {{ font-family: x; }}\";
                 add('font', st);
                 setTimeout(() => done(results.join(',')), 3000);",
            ))
            .await?;
        let tried = tried.as_str().unwrap_or_default().to_owned();
        ensure!(
            tried.contains("fetch refused") && !tried.contains("fetch answered"),
            "{tried}"
        );
        Ok(())
    })
    .await;
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "the webview reached an address outside the app"
    );
}

/// Invokes `command` with `args` (a JSON object literal) and says how it ended: `ok: <reply>` or
/// `refused: <error>`.
async fn invoke(ui: &Ui, command: &str, args: serde_json::Value) -> Check<String> {
    // The harness's asynchronous script takes no arguments, so the call is staged in a global
    // by a synchronous one first.
    let staged = ui
        .js_with(
            "window.__elnorSecurityCall = arguments[0]; return true;",
            serde_json::json!([command, args]),
        )
        .await?;
    ensure_eq!(staged, serde_json::json!(true));
    let out = ui
        .js_async(
            "const done = arguments[0];
             const [command, args] = window.__elnorSecurityCall;
             window.__TAURI__.core.invoke(command, args)
               .then((r) => done('ok: ' + JSON.stringify(r)),
                     (e) => done('refused: ' + (typeof e === 'string' ? e : JSON.stringify(e))));",
        )
        .await?;
    Ok(out.as_str().unwrap_or_default().to_owned())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn the_shell_calls_only_its_own_commands_and_refuses_hostile_ids_and_paths() {
    let world = World::new();
    drop(world.store());
    let outside = world.path("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let secret = outside.join("secret.txt");
    std::fs::write(&secret, SENTINEL).unwrap();
    let secret = secret.display().to_string();
    let long = "A".repeat(100_000);
    let hostile: Vec<(&str, &str)> = vec![
        ("parent traversal", "../../../../etc/passwd"),
        ("traversal to the outside file", "../outside/secret.txt"),
        ("absolute path to the outside file", &secret),
        ("absolute system path", "/etc/passwd"),
        ("file url", "file:///etc/passwd"),
        ("glob", "**/*"),
        ("shell substitution", "$(touch pwned)"),
        ("sql injection", "x'; DROP TABLE turns; --"),
        ("nul byte", "x\u{0}y"),
        ("terminal escape", "\u{1b}[2J"),
        ("empty", ""),
        ("very long", &long),
    ];

    App::with(&world, async |ui| {
        ui.find("#nav-home").await?;
        // The app's own command answers; a core plugin's, an unknown one and a plugin that is
        // not even there are refused.
        let status = invoke(ui, "status_get", serde_json::json!({})).await?;
        ensure!(status.starts_with("ok: "), "{status}");
        for denied in [
            "plugin:app|version",
            "plugin:path|resolve_directory",
            "plugin:webview|create_webview_window",
            "plugin:fs|read_text_file",
            "plugin:shell|execute",
            "not_a_command",
        ] {
            let out = invoke(ui, denied, serde_json::json!({"path": "/etc/passwd"})).await?;
            ensure!(out.starts_with("refused: "), "{denied}: {out}");
        }
        // Every id- or path-taking read refuses every hostile input, saying why.
        for (name, value) in &hostile {
            for (command, request) in [
                (
                    "turns_list",
                    serde_json::json!({"session_id": value, "offset": 0, "limit": 10}),
                ),
                (
                    "work_contexts_get",
                    serde_json::json!({"work_context_id": value}),
                ),
                ("library_document_get", serde_json::json!({"path": value})),
                ("knowledge_get", serde_json::json!({"node_id": value})),
                ("topic_get", serde_json::json!({"topic_id": value})),
                (
                    "constellation_get",
                    serde_json::json!({"work_context_id": value}),
                ),
            ] {
                let out = invoke(ui, command, serde_json::json!({ "request": request })).await?;
                ensure!(
                    out.starts_with("refused: ") && out.len() > "refused: ".len() + 2,
                    "{command} with {name}: {}",
                    out.chars().take(300).collect::<String>()
                );
                ensure!(
                    !out.contains(SENTINEL) && !out.contains("root:x:0:0"),
                    "{command} with {name} showed a file outside the store"
                );
            }
        }
        // The app still answers after all of it.
        let status = invoke(ui, "status_get", serde_json::json!({})).await?;
        ensure!(status.starts_with("ok: "), "{status}");
        Ok(())
    })
    .await;
    assert!(
        !world.path("pwned").exists() && !std::path::Path::new("pwned").exists(),
        "a shell ran"
    );
    assert_eq!(
        std::fs::read_to_string(world.path("outside/secret.txt")).unwrap(),
        SENTINEL
    );
}
