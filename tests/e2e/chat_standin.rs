//! A stand-in for a local Ollama server, for the tests that ask the synthesis model for an answer
//! over search results: it listens on a loopback port and answers every `POST /api/chat` with a
//! canned answer in the JSON the engine asks for. The answer cites the first result it was given
//! (the first `[id]` after "Results:" in the user's message), so the test need not know the ids
//! beforehand, and one id it was not given ([`UNGIVEN`]), which the engine must drop and say.
//! Ollama is the provider that needs no API key, and there is no keyring in the test session.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

/// The answer's text.
pub const ANSWER: &str = "The module was renamed before the atlas release.";
/// The snippet the answer quotes from the result it cites.
pub const SNIPPET: &str = "Rename the module";
/// An id no search gives the model.
pub const UNGIVEN: &str = "turn:999999";

/// Serves the stand-in for the rest of the test process and returns its base address.
pub fn serve() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port for the stand-in");
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                // A client that gives up (a timeout) is not the stand-in's failure; the test sees
                // the app's fallback note instead of the answer.
                let _ = answer(stream);
            });
        }
    });
    base
}

/// The first result id in a chat request's user message.
fn first_id(request: &serde_json::Value) -> Option<String> {
    let user = request["messages"]
        .as_array()?
        .iter()
        .find(|m| m["role"] == "user")?["content"]
        .as_str()?;
    let results = &user[user.find("Results:")?..];
    let open = results.find('[')?;
    let close = open + results[open..].find(']')?;
    Some(results[open + 1..close].to_owned())
}

/// Answers one request: the canned answer to `POST /api/chat`, 404 to anything else.
fn answer(stream: TcpStream) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut length = 0usize;
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
        line.clear();
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let mut out = stream;
    let path = request_line.split_whitespace().nth(1).unwrap_or_default();
    let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let (true, Some(id)) = (path == "/api/chat", first_id(&request)) else {
        return out.write_all(
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
    };
    let content = serde_json::json!({
        "answer": ANSWER,
        "attributions": [
            {"id": id, "snippet": SNIPPET},
            {"id": UNGIVEN, "snippet": "x"},
        ],
    });
    let reply = serde_json::json!({
        "model": request["model"],
        "message": {"role": "assistant", "content": content.to_string()},
        "done": true,
    })
    .to_string();
    write!(
        out,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: \
         close\r\n\r\n{reply}",
        reply.len()
    )?;
    out.flush()
}
