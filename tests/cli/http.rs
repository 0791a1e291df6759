//! A one-thread HTTP/1.1 server on 127.0.0.1 answering each connection with the next
//! scripted `(status, body)` and recording the request lines, headers and bodies.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

pub struct Server {
    pub url: String,
    pub requests: Arc<Mutex<Vec<String>>>,
}

impl Server {
    pub fn start(replies: Vec<(u16, String)>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&requests);
        std::thread::spawn(move || {
            for (status, body) in replies {
                let Ok((stream, _)) = listener.accept() else {
                    return;
                };
                let mut reader = BufReader::new(&stream);
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
                log.lock()
                    .unwrap()
                    .push(head + "\r\n" + &String::from_utf8_lossy(&buf));
                let reply = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let mut w = &stream;
                let _ = w.write_all(reply.as_bytes());
            }
        });
        Server { url, requests }
    }

    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

/// A Chat Completions answer with `text`.
pub fn openai_answer(text: &str) -> (u16, String) {
    let v = serde_json::json!({"choices": [{"message": {"role": "assistant", "content": text}}]});
    (200, v.to_string())
}
