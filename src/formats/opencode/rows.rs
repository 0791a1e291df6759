//! The rows of an OpenCode session as its database stores them: a `message` row with its
//! `part` rows. The leaf that reading them ([`super::db`]) and rendering them
//! ([`super::view`]) share.

/// One `message` row with its `part` rows, as stored.
#[derive(Debug, Clone)]
pub struct Row {
    pub id: String,
    pub time_created: i64,
    /// The `data` text, on one line.
    pub data: String,
    pub parts: Vec<PartRow>,
}

/// One `part` row.
#[derive(Debug, Clone)]
pub struct PartRow {
    pub id: String,
    pub time_created: i64,
    pub data: String,
}
