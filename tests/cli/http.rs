//! A one-thread HTTP/1.1 server on 127.0.0.1 answering each connection with the next
//! scripted `(status, body)` and recording the request lines, headers and bodies.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

pub struct Server {
    pub url: String,
    pub requests: Arc<Mutex<Vec<String>>>,
}

impl Server {
    pub fn start(replies: Vec<(u16, String)>) -> Server {
        let n = replies.len();
        let mut replies = replies.into_iter();
        Server::serve(Some(n), move |_| replies.next().unwrap())
    }

    /// A summarizer stand-in that answers every request in the shape its path asks for:
    /// `…/chat/completions` as OpenAI, `…/messages` as Anthropic.
    pub fn llm_stub() -> Server {
        Server::serve(None, |request| {
            let line = request.lines().next().unwrap_or_default();
            let path = line.split(' ').nth(1).unwrap_or_default();
            if path.ends_with("/chat/completions") {
                openai_answer("STUB SUMMARY: the inventory fix and its regression test.")
            } else if path.ends_with("/messages") {
                let v = serde_json::json!({"content": [{"type": "text", "text": "STUB SUMMARY"}]});
                (200, v.to_string())
            } else {
                (404, format!("{{\"error\":\"no route {path}\"}}"))
            }
        })
    }

    /// A Chat Completions summarizer stand-in that writes what it is asked for: a
    /// `## Title` heading for every numbered section the prompt asks for (`N. Title: …`),
    /// the first carrying the conversation's `[user]` lines verbatim, the others "none".
    pub fn sections_stub() -> Server {
        Server::serve(None, |request| {
            let body = request.split("\r\n\r\n").nth(1).unwrap_or_default();
            let v: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
            let user = v["messages"][1]["content"].as_str().unwrap_or_default();
            let titles: Vec<&str> = (user.lines())
                .filter_map(|l| {
                    let (n, rest) = l.split_once(". ")?;
                    n.parse::<u32>().ok()?;
                    Some(rest.split_once(':')?.0)
                })
                .collect();
            let lines: Vec<&str> = user.lines().collect();
            let asked: Vec<&str> = (lines.windows(2))
                .filter(|w| w[0] == "[user]")
                .map(|w| w[1])
                .collect();
            let mut out = String::new();
            for (i, t) in titles.iter().enumerate() {
                out.push_str(&format!("## {t}\n"));
                match i {
                    0 => asked.iter().for_each(|a| out.push_str(&format!("- {a}\n"))),
                    _ => out.push_str("none\n"),
                }
            }
            openai_answer(&out)
        })
    }

    /// A stand-in for the three token-counting endpoints, answering each in its
    /// provider's shape with 1000 + 100 × the number of messages (input items, contents)
    /// in the request's body, so that a test can tell which messages were counted.
    pub fn count_stub() -> Server {
        Server::serve(None, |request| {
            let line = request.lines().next().unwrap_or_default();
            let path = line.split(' ').nth(1).unwrap_or_default().to_string();
            let body = request.split("\r\n\r\n").nth(1).unwrap_or_default();
            let v: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
            let items = [
                "/messages",
                "/input",
                "/contents",
                "/generateContentRequest/contents",
            ]
            .iter()
            .find_map(|p| v.pointer(p).and_then(|a| a.as_array()))
            .map_or(0, Vec::len);
            let n = 1000 + 100 * items;
            let answer = if path == "/v1/messages/count_tokens" {
                serde_json::json!({"input_tokens": n})
            } else if path == "/v1/responses/input_tokens" {
                serde_json::json!({"object": "response.input_tokens", "input_tokens": n})
            } else if path.starts_with("/v1beta/models/") && path.ends_with(":countTokens") {
                serde_json::json!({"totalTokens": n})
            } else {
                return (404, format!("{{\"error\":\"no route {path}\"}}"));
            };
            (200, answer.to_string())
        })
    }

    /// A server that accepts connections and never answers them.
    pub fn silent() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            let mut held = Vec::new();
            while let Ok((stream, _)) = listener.accept() {
                held.push(stream);
            }
        });
        Server {
            url,
            requests: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// Serves `limit` connections (or any number) one by one, answering each with
    /// `reply(recorded request)`; later connections are refused.
    fn serve(
        limit: Option<usize>,
        mut reply: impl FnMut(&str) -> (u16, String) + Send + 'static,
    ) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&requests);
        std::thread::spawn(move || {
            for _ in 0..limit.unwrap_or(usize::MAX) {
                let Ok((stream, _)) = listener.accept() else {
                    return;
                };
                let request = read_request(&stream);
                log.lock().unwrap().push(request.clone());
                let (status, body) = reply(&request);
                let answer = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
                let mut w = &stream;
                let _ = w.write_all(answer.as_bytes());
            }
        });
        Server { url, requests }
    }

    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

/// A request as [`Server::requests`] holds it: its request line and headers as a snapshot
/// shows them (the server's port as `[PORT]`, the body's length as `[LEN]`), and its body
/// as JSON.
pub fn split_request(req: &str) -> (String, serde_json::Value) {
    let (head, body) = req.split_once("\r\n\r\n").expect("a request head");
    let port = regex::Regex::new(r"127\.0\.0\.1:\d+").unwrap();
    let len = regex::Regex::new(r"(?im)^(content-length:) *\d+").unwrap();
    let head = port.replace_all(head, "127.0.0.1:[PORT]");
    let head = len.replace_all(&head, "$1 [LEN]").replace("\r\n", "\n");
    let body =
        serde_json::from_str(body).unwrap_or_else(|e| panic!("body is not JSON ({e}): {req}"));
    (head, body)
}

/// The request line and headers, a blank line, then the body.
fn read_request(stream: &TcpStream) -> String {
    let mut reader = BufReader::new(stream);
    let mut head = String::new();
    let mut len = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            len = v.trim().parse().unwrap_or(0);
        }
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let mut buf = vec![0; len];
    let _ = reader.read_exact(&mut buf);
    head + "\r\n" + &String::from_utf8_lossy(&buf)
}

/// A Chat Completions answer with `text`.
pub fn openai_answer(text: &str) -> (u16, String) {
    let v = serde_json::json!({"choices": [{"message": {"role": "assistant", "content": text}}]});
    (200, v.to_string())
}
