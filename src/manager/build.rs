//! Building messages by hand, for agent loops that keep their conversation in memory.

use crate::session::{Message, Origin, Part, Role};

impl Message {
    /// A message of `role` holding one text.
    ///
    /// ```
    /// use ctxctl::{Message, Role};
    /// let m = Message::with_text(Role::User, "hello");
    /// assert_eq!((m.role, m.text().as_str()), (Role::User, "hello"));
    /// ```
    pub fn with_text(role: Role, text: impl Into<String>) -> Message {
        Message::new(role, vec![Part::Text(text.into())], Origin::Record(0))
    }

    /// A system message.
    pub fn system(text: impl Into<String>) -> Message {
        Message::with_text(Role::System, text)
    }

    /// A user message.
    pub fn user(text: impl Into<String>) -> Message {
        Message::with_text(Role::User, text)
    }

    /// An assistant message.
    pub fn assistant(text: impl Into<String>) -> Message {
        Message::with_text(Role::Assistant, text)
    }

    /// An assistant message calling tools: `(id, name, arguments as JSON text)` each.
    ///
    /// ```
    /// use ctxctl::Message;
    /// let call = Message::tool_calls([("call_1", "read_file", r#"{"path":"src/main.rs"}"#)]);
    /// assert_eq!(call.call_ids().collect::<Vec<_>>(), ["call_1"]);
    /// ```
    pub fn tool_calls<I, S1, S2, S3>(calls: I) -> Message
    where
        I: IntoIterator<Item = (S1, S2, S3)>,
        S1: Into<String>,
        S2: Into<String>,
        S3: Into<String>,
    {
        let parts = calls
            .into_iter()
            .map(|(id, name, arguments)| Part::ToolCall {
                id: id.into(),
                name: name.into(),
                arguments: arguments.into(),
            })
            .collect();
        Message::new(Role::Assistant, parts, Origin::Record(0))
    }

    /// The result of tool call `call_id` (a `tool` message, as OpenAI's API has it).
    ///
    /// ```
    /// use ctxctl::Message;
    /// let result = Message::tool_result("call_1", "fn main() {}");
    /// assert_eq!(result.result_ids().collect::<Vec<_>>(), ["call_1"]);
    /// ```
    pub fn tool_result(call_id: impl Into<String>, content: impl Into<String>) -> Message {
        let part = Part::ToolResult {
            call_id: call_id.into(),
            content: vec![Part::Text(content.into())],
            is_error: false,
        };
        Message::new(Role::Tool, vec![part], Origin::Record(0))
    }

    /// The same message marked as one no trim may remove (like `"_preserve": true` in a
    /// file).
    pub fn pinned(mut self) -> Message {
        self.pinned = true;
        self
    }
}
