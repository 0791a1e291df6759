//! Test sessions built as real files (OpenAI, Anthropic, JSONL) and read back, so plans are
//! checked against what `session::write` makes of them.

use serde_json::{json, Value};

use super::{plan, Options, Plan, StrategyKind};
use crate::formats;
use crate::session::{Format, Message, Role, Session};
use crate::tokens::{Counter, Encoding, Tokenizer};

/// One turn of a test conversation.
#[derive(Debug, Clone)]
pub enum Turn {
    Sys(String),
    User(String),
    Asst(String),
    /// An assistant message calling tools (named `tool_<id>`).
    Calls(Vec<String>),
    /// The results of calls: one `tool` message each in OpenAI shape, one user message in
    /// Anthropic shape.
    Results(Vec<(String, String)>),
}

/// A turn with the record fields ctxctl reads.
#[derive(Debug, Clone)]
pub struct Rec {
    pub turn: Turn,
    pub pinned: bool,
    pub id: Option<String>,
}

/// Builds a conversation turn by turn.
#[derive(Debug, Clone, Default)]
pub struct B {
    pub recs: Vec<Rec>,
}

/// `n` characters of text, distinct per turn (`n / 4` tokens with the approx counter).
pub fn text(tag: usize, n: usize) -> String {
    const WORDS: [&str; 8] = [
        "lorem ",
        "ipsum ",
        "dolor ",
        "sit ",
        "amet, ",
        "consectetur ",
        "adipiscing ",
        "elit.\n",
    ];
    let mut t = format!("m{tag} ");
    let mut k = tag;
    while t.len() < n {
        t.push_str(WORDS[k % WORDS.len()]);
        k += 1;
    }
    t.truncate(n);
    t
}

impl B {
    pub fn new() -> B {
        B::default()
    }
    pub fn push(mut self, turn: Turn) -> B {
        self.recs.push(Rec {
            turn,
            pinned: false,
            id: None,
        });
        self
    }
    pub fn sys(self, t: &str) -> B {
        self.push(Turn::Sys(t.into()))
    }
    pub fn user(self, n: usize) -> B {
        let t = text(self.recs.len(), n);
        self.push(Turn::User(t))
    }
    pub fn user_text(self, t: &str) -> B {
        self.push(Turn::User(t.into()))
    }
    pub fn asst(self, n: usize) -> B {
        let t = text(self.recs.len(), n);
        self.push(Turn::Asst(t))
    }
    pub fn calls(self, ids: &[&str]) -> B {
        self.push(Turn::Calls(ids.iter().map(|s| s.to_string()).collect()))
    }
    /// One result turn per call of `ids`, each `n` characters.
    pub fn results(self, ids: &[&str], n: usize) -> B {
        let tag = self.recs.len();
        let rs = ids
            .iter()
            .map(|id| (id.to_string(), text(tag, n)))
            .collect();
        self.push(Turn::Results(rs))
    }
    pub fn result(self, id: &str, n: usize) -> B {
        self.results(&[id], n)
    }
    pub fn result_text(self, id: &str, t: &str) -> B {
        self.push(Turn::Results(vec![(id.into(), t.into())]))
    }
    /// Marks the last turn `"_preserve": true`.
    pub fn pin(mut self) -> B {
        self.recs.last_mut().expect("a turn to pin").pinned = true;
        self
    }
    pub fn id(mut self, id: &str) -> B {
        self.recs.last_mut().expect("a turn").id = Some(id.into());
        self
    }

    pub fn openai(&self) -> S {
        S::read(
            serde_json::to_vec(&self.openai_records()).unwrap(),
            Format::OpenAi,
        )
    }

    pub fn jsonl(&self) -> S {
        let mut text = String::new();
        for r in self.openai_records() {
            text.push_str(&r.to_string());
            text.push('\n');
        }
        S::read(text.into_bytes(), Format::Jsonl)
    }

    /// Leading system turns become the top-level `system` (joined); later ones are not
    /// representable and are skipped.
    pub fn anthropic(&self) -> S {
        let mut system = Vec::new();
        let mut msgs = Vec::new();
        for (i, r) in self.recs.iter().enumerate() {
            let mut v = match &r.turn {
                Turn::Sys(t) if msgs.is_empty() => {
                    system.push(json!({"type": "text", "text": t}));
                    continue;
                }
                Turn::Sys(_) => continue,
                Turn::User(t) => json!({"role": "user", "content": t}),
                Turn::Asst(t) => {
                    json!({"role": "assistant", "content": [{"type": "text", "text": t}]})
                }
                Turn::Calls(ids) => {
                    json!({"role": "assistant", "content": ids.iter().map(|id| json!(
                    {"type": "tool_use", "id": id, "name": format!("tool_{id}"), "input": {"i": i}}
                )).collect::<Vec<_>>()})
                }
                Turn::Results(rs) => {
                    json!({"role": "user", "content": rs.iter().map(|(id, t)| json!(
                    {"type": "tool_result", "tool_use_id": id, "content": t}
                )).collect::<Vec<_>>()})
                }
            };
            decorate(&mut v, r);
            msgs.push(v);
        }
        let mut root = json!({"model": "claude-sonnet-4-5", "max_tokens": 1024});
        if !system.is_empty() {
            root["system"] = Value::Array(system);
        }
        root["messages"] = Value::Array(msgs);
        S::read(serde_json::to_vec_pretty(&root).unwrap(), Format::Anthropic)
    }

    fn openai_records(&self) -> Vec<Value> {
        let mut out = Vec::new();
        for (i, r) in self.recs.iter().enumerate() {
            let mut vs = match &r.turn {
                Turn::Sys(t) => vec![json!({"role": "system", "content": t})],
                Turn::User(t) => vec![json!({"role": "user", "content": t})],
                Turn::Asst(t) => vec![json!({"role": "assistant", "content": t})],
                Turn::Calls(ids) => vec![json!({"role": "assistant", "content": null,
                    "tool_calls": ids.iter().map(|id| json!({"id": id, "type": "function",
                        "function": {"name": format!("tool_{id}"), "arguments": format!("{{\"i\":{i}}}")}}))
                        .collect::<Vec<_>>()})],
                Turn::Results(rs) => rs
                    .iter()
                    .map(|(id, t)| json!({"role": "tool", "tool_call_id": id, "content": t}))
                    .collect(),
            };
            for v in &mut vs {
                decorate(v, r);
            }
            out.extend(vs);
        }
        out
    }
}

fn decorate(v: &mut Value, r: &Rec) {
    if r.pinned {
        v["_preserve"] = json!(true);
    }
    if let Some(id) = &r.id {
        v["id"] = json!(id);
    }
}

/// A session read from a file, with its counts.
pub struct S {
    pub session: Session,
    pub counts: Vec<usize>,
    pub counter: Counter,
}

impl S {
    pub fn read(bytes: Vec<u8>, format: Format) -> S {
        let session = formats::read(&bytes, Some(format)).expect("test session reads");
        S::with(session, Encoding::Approx)
    }

    /// `session` counted with `encoding`.
    pub fn with(session: Session, encoding: Encoding) -> S {
        let counter = Counter::new(Tokenizer::new(encoding).unwrap());
        let counts = counter.messages(&session);
        S {
            session,
            counts,
            counter,
        }
    }
    pub fn total(&self) -> usize {
        Counter::total(&self.counts)
    }
    /// The total of the session without the messages at `gone`.
    pub fn total_without(&self, gone: &[usize]) -> usize {
        let kept: Vec<usize> = (0..self.counts.len())
            .filter(|i| !gone.contains(i))
            .map(|i| self.counts[i])
            .collect();
        Counter::total(&kept)
    }
}

/// A plan and the session its items write, read back.
pub struct R {
    pub plan: Plan,
    pub out: Session,
}

impl R {
    pub fn roles(&self) -> Vec<Role> {
        self.out.messages.iter().map(|m| m.role).collect()
    }
    pub fn texts(&self) -> Vec<String> {
        self.out.messages.iter().map(Message::text).collect()
    }
}

/// Plans, writes and reads back; panics if any step fails.
pub fn run(s: &S, kind: StrategyKind, opts: &Options, budget: usize) -> R {
    let plan = plan(&s.session, &s.counts, &s.counter, kind, opts, budget).expect("plan");
    let out = reread(s, &plan);
    R { plan, out }
}

/// Writes `plan` and reads the result back in the same format.
pub fn reread(s: &S, plan: &Plan) -> Session {
    let bytes = formats::write(&s.session, &plan.items).expect("plan items write");
    if bytes.iter().all(u8::is_ascii_whitespace) {
        // An empty JSONL file: nothing to read, nothing kept.
        assert!(plan.items.is_empty());
        return formats::read(b"[]", Some(Format::OpenAi)).unwrap();
    }
    formats::read(&bytes, Some(s.session.format)).expect("written plan reads back")
}
