//! The one way a test drives the app: [`App::with`] launches it on a [`World`], hands the body a
//! [`Ui`], and tears everything down again.
//!
//! The harness owns what every test used to repeat: starting `tauri-driver` (which starts
//! WebKitWebDriver, which starts the app), the WebDriver session, stopping both, and the report a
//! failure leaves behind. A body fails by returning an error, which the [`ensure!`] and
//! [`ensure_eq!`] checks and every `Ui` wait produce, or by panicking; either way the harness saves
//! a screenshot and prints the page source before the test fails, so no failure goes without
//! them. Every wait polls through [`Ui::wait_until`] with the single timeout [`WAIT`].

use std::ffi::OsString;
use std::fmt::Display;
use std::net::{TcpListener, TcpStream};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::task::Poll;
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::error::CmdError;
use fantoccini::{Client, ClientBuilder, Locator};

use crate::world::World;

/// How long any wait lasts before it fails: the app's slowest step (an ingest with capture)
/// finishes well inside it on a loaded CI machine.
pub const WAIT: Duration = Duration::from_secs(30);

/// How often a wait looks again.
const POLL: Duration = Duration::from_millis(100);

/// Why a test body stopped: a failed check, a wait that ran out, or a WebDriver command error.
#[derive(Debug)]
pub struct Failure(String);

impl Failure {
    pub fn new(message: impl Into<String>) -> Failure {
        Failure(message.into())
    }
}

impl From<CmdError> for Failure {
    fn from(e: CmdError) -> Failure {
        Failure(format!("WebDriver command: {e}"))
    }
}

/// What a test body and its helpers return; `?` turns WebDriver errors into failures.
pub type Check<T = ()> = Result<T, Failure>;

/// Fails the test body unless the condition holds, like `assert!` but through the harness, so
/// the failure is reported with a screenshot and the page source.
macro_rules! ensure {
    ($cond:expr $(,)?) => {
        if !$cond {
            return Err($crate::harness::Failure::new(concat!(
                "check failed at ",
                file!(),
                ":",
                line!(),
                ": ",
                stringify!($cond)
            )));
        }
    };
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err($crate::harness::Failure::new(format!(
                "check failed at {}:{}: {}: {}",
                file!(),
                line!(),
                stringify!($cond),
                format_args!($($msg)+)
            )));
        }
    };
}

/// Fails the test body unless the two values are equal, like `assert_eq!` but through the
/// harness.
macro_rules! ensure_eq {
    ($left:expr, $right:expr $(,)?) => {
        $crate::harness::ensure_eq!($left, $right, "values differ")
    };
    ($left:expr, $right:expr, $($msg:tt)+) => {
        match (&$left, &$right) {
            (left, right) => {
                if !(*left == *right) {
                    return Err($crate::harness::Failure::new(format!(
                        "check failed at {}:{}: {} == {}: {}\n  left: {left:?}\n right: {right:?}",
                        file!(),
                        line!(),
                        stringify!($left),
                        stringify!($right),
                        format_args!($($msg)+)
                    )));
                }
            }
        }
    };
}

pub(crate) use {ensure, ensure_eq};

/// The app binary under test: `$ELNOR_APP_BINARY`, else `elnor-desktop` in the cargo target dir.
pub fn app_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("ELNOR_APP_BINARY") {
        return PathBuf::from(path);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("debug/elnor-desktop")
}

/// The app under test, for the length of one body.
pub struct App;

impl App {
    /// Launches the app on `world`, runs `body` against it, and tears it down. A body that fails
    /// or panics leaves a screenshot and the page source, then fails the test; otherwise its
    /// value is returned, for the checks on disk that follow.
    pub async fn with<T>(world: &World, body: impl AsyncFnOnce(&Ui) -> Check<T>) -> T {
        Self::with_binary(world, &app_binary(), body).await
    }

    /// [`App::with`] for another Tauri binary, started the same way (the start-up benchmark's
    /// peer, an empty window).
    pub async fn with_binary<T>(
        world: &World,
        app: &Path,
        body: impl AsyncFnOnce(&Ui) -> Check<T>,
    ) -> T {
        let ui = Ui::launch(world, app).await;
        // A panic (an `unwrap` in the body, say) must not skip the report: it is caught here,
        // reported like a failed check, and resumed once the app is down.
        let outcome = {
            let mut run = std::pin::pin!(body(&ui));
            std::future::poll_fn(|cx| {
                match std::panic::catch_unwind(AssertUnwindSafe(|| run.as_mut().poll(cx))) {
                    Ok(Poll::Pending) => Poll::Pending,
                    Ok(Poll::Ready(result)) => Poll::Ready(Ok(result)),
                    Err(panic) => Poll::Ready(Err(panic)),
                }
            })
            .await
        };
        if !matches!(outcome, Ok(Ok(_))) {
            ui.report_failure().await;
        }
        ui.close().await;
        match outcome {
            Ok(Ok(value)) => value,
            Ok(Err(Failure(message))) => panic!("{message}"),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

/// How many times a WebDriver session is tried, each with a new tauri-driver.
const SESSION_ATTEMPTS: u32 = 3;

/// `tauri-driver`, stopped with SIGTERM on drop: killing it hard would orphan WebKitWebDriver.
struct Driver {
    child: Child,
    port: u16,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

impl Driver {
    /// Starts tauri-driver with `home` as the app's home directory, so transcript sources (and an
    /// embedding model) found by default on the machine running the test never leak into it, and
    /// with the world's own variables (`env`), which the app inherits through tauri-driver and
    /// WebKitWebDriver.
    fn start(home: &Path, env: &[(String, OsString)]) -> Driver {
        let port = free_port();
        let native_port = free_port();
        let mut command = Command::new("tauri-driver");
        command
            .args([
                "--port",
                &port.to_string(),
                "--native-port",
                &native_port.to_string(),
            ])
            .env("HOME", home)
            // The harnesses' settings are found under HOME unless these say elsewhere: without
            // them the app reads the world's (or none), never those of whoever runs the test.
            .env_remove("CODEX_HOME")
            .env_remove("OPENCLAW_HOME")
            .env_remove("OPENCLAW_STATE_DIR")
            .env_remove("OPENCLAW_CONFIG_PATH")
            // The embedding model is found through these, or under HOME: without them the app
            // has none, as on a new machine, and a search says it fell back to words alone.
            .env_remove("ELNOR_MINILM_DIR")
            .env_remove("XDG_CACHE_HOME")
            // Where a download fetches the model from: its usual home unless a world says.
            .env_remove("ELNOR_MODEL_BASE_URL")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        let child = command
            .spawn()
            .expect("tauri-driver on PATH (scripts/setup.sh test installs it)");
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < WAIT,
                "tauri-driver did not listen on {port}"
            );
            std::thread::sleep(POLL);
        }
        Driver { child, port }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(POLL);
        }
        // Still running after SIGTERM's grace period: only now is a hard kill the lesser evil.
        let _ = self.child.kill();
    }
}

/// The running app's page, as a person would use it: find, click, type, read, wait.
pub struct Ui {
    client: Client,
    driver: Driver,
    /// Names the failure report's files: the test's name, which libtest gives its thread.
    name: String,
}

impl Ui {
    /// Starts the app on the world's store (its home directory the world's) and opens a
    /// WebDriver session with it.
    async fn launch(world: &World, app: &Path) -> Ui {
        assert!(
            app.exists(),
            "{} missing: build the app first",
            app.display()
        );
        let mut caps = serde_json::Map::new();
        caps.insert(
            "tauri:options".into(),
            serde_json::json!({
                "application": app,
                "args": ["--store", world.store_path()],
            }),
        );
        // A session can fail to open for reasons outside the app: the ports are picked free, then
        // released, so a test starting beside this one may take one before tauri-driver binds it,
        // and WebKitWebDriver sometimes drops its first connection. A fresh driver on fresh ports
        // is what a person would try; the app's own failures still fail every attempt.
        let mut attempt = 1;
        let (client, driver) = loop {
            let driver = Driver::start(world.home(), world.app_env());
            match ClientBuilder::native()
                .capabilities(caps.clone())
                .connect(&format!("http://127.0.0.1:{}", driver.port))
                .await
            {
                Ok(client) => break (client, driver),
                Err(e) if attempt < SESSION_ATTEMPTS => {
                    eprintln!("WebDriver session attempt {attempt} failed ({e}); trying again");
                    attempt += 1;
                }
                Err(e) => panic!("a WebDriver session with the app: {e}"),
            }
        };
        let name = std::thread::current()
            .name()
            .unwrap_or("e2e")
            .replace("::", "-");
        Ui {
            client,
            driver,
            name,
        }
    }

    /// Ends the WebDriver session (which closes the app), then stops tauri-driver.
    async fn close(self) {
        let _ = self.client.close().await;
        drop(self.driver);
    }

    /// What a failed test leaves for the person reading CI: a screenshot, and the start of the
    /// page's HTML on stderr.
    async fn report_failure(&self) {
        let dir = std::env::var_os("ELNOR_E2E_SCREENSHOTS")
            .map(PathBuf::from)
            .unwrap_or_else(|| std::env::temp_dir().join("elnor-e2e-failures"));
        let path = dir.join(format!("{}-failure.png", self.name));
        match self.client.screenshot().await {
            Ok(png) => {
                match std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, png)) {
                    Ok(()) => eprintln!("screenshot at failure: {}", path.display()),
                    Err(e) => eprintln!("could not save the failure screenshot: {e}"),
                }
            }
            Err(e) => eprintln!("could not take the failure screenshot: {e}"),
        }
        let source: String = self
            .client
            .source()
            .await
            .unwrap_or_default()
            .chars()
            .take(6000)
            .collect();
        eprintln!("page at failure:\n{source}");
    }

    /// Saves a screenshot to `$ELNOR_E2E_SCREENSHOTS/name.png` when that variable is set: the
    /// pictures of the pages that the documentation and reviewers look at.
    pub async fn screenshot(&self, name: &str) {
        if let Some(dir) = std::env::var_os("ELNOR_E2E_SCREENSHOTS")
            && let Ok(png) = self.client.screenshot().await
        {
            let _ = std::fs::write(Path::new(&dir).join(format!("{name}.png")), png);
        }
    }

    /// The one wait: polls `poll` until it yields a value, failing with `what` after [`WAIT`].
    pub async fn wait_until<T>(
        &self,
        what: impl Display,
        mut poll: impl AsyncFnMut() -> Check<Option<T>>,
    ) -> Check<T> {
        let started = Instant::now();
        loop {
            if let Some(value) = poll().await? {
                return Ok(value);
            }
            if started.elapsed() > WAIT {
                return Err(Failure(format!("waited {WAIT:?} for {what}")));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Every element that matches `css` now, without waiting.
    pub async fn find_all(&self, css: &str) -> Check<Vec<Element>> {
        Ok(self.client.find_all(Locator::Css(css)).await?)
    }

    /// Waits for an element matching `css`.
    pub async fn find(&self, css: &str) -> Check<Element> {
        self.wait_until(format!("{css} to appear"), async || {
            Ok(self.find_all(css).await?.into_iter().next())
        })
        .await
    }

    /// Waits until exactly `n` elements match `css`, returning them.
    pub async fn wait_count(&self, css: &str, n: usize) -> Check<Vec<Element>> {
        self.wait_until(format!("{n} element(s) matching {css}"), async || {
            let found = self.find_all(css).await?;
            Ok((found.len() == n).then_some(found))
        })
        .await
    }

    /// Waits until nothing matches `css`.
    pub async fn wait_gone(&self, css: &str) -> Check {
        self.wait_until(format!("{css} to go away"), async || {
            Ok(self.find_all(css).await?.is_empty().then_some(()))
        })
        .await
    }

    /// Waits for `css` and returns its rendered text.
    pub async fn text(&self, css: &str) -> Check<String> {
        self.wait_until(format!("{css} to appear"), async || {
            self.text_now(css).await
        })
        .await
    }

    /// Waits until the text of `css` satisfies `pred`, returning it.
    pub async fn wait_text(&self, css: &str, pred: impl Fn(&str) -> bool) -> Check<String> {
        let mut last = None;
        let found = self
            .wait_until(format!("the text of {css} to match"), async || {
                let text = self.text_now(css).await?;
                match text {
                    Some(t) if pred(&t) => Ok(Some(t)),
                    seen => {
                        last = seen;
                        Ok(None)
                    }
                }
            })
            .await;
        found.map_err(|Failure(m)| Failure(format!("{m}; last text seen: {last:?}")))
    }

    /// The text of `css` if it is on the page now.
    async fn text_now(&self, css: &str) -> Check<Option<String>> {
        let Some(element) = self.find_all(css).await?.into_iter().next() else {
            return Ok(None);
        };
        match element.text().await {
            Ok(text) => Ok(Some(text)),
            // Re-rendered between finding and reading (a reply replaced that part of the page):
            // the next poll reads the new element.
            Err(e) if e.is_stale_element_reference() => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Waits for `css`, then clicks it.
    pub async fn click(&self, css: &str) -> Check {
        self.wait_until(format!("{css} to click"), async || {
            let Some(element) = self.find_all(css).await?.into_iter().next() else {
                return Ok(None);
            };
            match element.click().await {
                Ok(()) => Ok(Some(())),
                // Replaced between finding and clicking: click the new one.
                Err(e) if e.is_stale_element_reference() => Ok(None),
                Err(e) => Err(e.into()),
            }
        })
        .await
    }

    /// Waits for `css`, then types `keys` into it.
    pub async fn type_into(&self, css: &str, keys: &str) -> Check {
        Ok(self.find(css).await?.send_keys(keys).await?)
    }

    /// Types `keys` into the page, where its keyboard shortcuts listen.
    pub async fn keys(&self, keys: &str) -> Check {
        self.type_into("body", keys).await
    }

    /// Chooses `value` in the select `css` once the option is there (options load with their
    /// list).
    pub async fn select(&self, css: &str, value: &str) -> Check {
        self.find(&format!("{css} option[value='{value}']")).await?;
        Ok(self.find(css).await?.select_by_value(value).await?)
    }

    /// The element that has the keyboard focus.
    pub async fn focused(&self) -> Check<Element> {
        Ok(self.client.active_element().await?)
    }

    /// Runs `script` in the page and returns its value.
    pub async fn js(&self, script: &str) -> Check<serde_json::Value> {
        Ok(self.client.execute(script, vec![]).await?)
    }

    /// Runs `script` in the page with `arg` as `arguments[0]`, and returns its value.
    pub async fn js_with(&self, script: &str, arg: serde_json::Value) -> Check<serde_json::Value> {
        Ok(self.client.execute(script, vec![arg]).await?)
    }

    /// Sets the window's outer size, as a person dragging its corner would.
    pub async fn resize(&self, width: u32, height: u32) -> Check {
        Ok(self.client.set_window_size(width, height).await?)
    }

    /// Runs `script` in the page; it returns by calling `arguments[0]`.
    pub async fn js_async(&self, script: &str) -> Check<serde_json::Value> {
        Ok(self.client.execute_async(script, vec![]).await?)
    }
}

/// The element matching `css` inside `element`, which must be there already: the callers have
/// waited for the row it is part of.
pub async fn find_in(element: &Element, css: &str) -> Check<Element> {
    element
        .find(Locator::Css(css))
        .await
        .map_err(|e| Failure::new(format!("{css} missing in the row: {e}")))
}

/// The rendered text of `css` inside `element`.
pub async fn text_in(element: &Element, css: &str) -> Check<String> {
    Ok(find_in(element, css).await?.text().await?)
}
