//! Tables: aligned text for people, or (`--tsv`) tab-separated values with raw numbers for
//! `sort -n`, `cut` and spreadsheets. Numbers have one style in human output: thousands
//! separators (`12,345`), right-aligned.

/// One cell of a [`Table`].
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Text(String),
    /// A count: `12,345` for people, `12345` in TSV.
    Num(u64),
    /// A share: `12.3%` for people, `0.1234` in TSV.
    Share(f64),
    /// Nothing to show: `-` for people, empty in TSV.
    None,
}

impl Cell {
    pub fn text(s: impl Into<String>) -> Cell {
        Cell::Text(s.into())
    }

    /// `Num(n)`, or `None` without a value.
    pub fn opt(n: Option<u64>) -> Cell {
        n.map_or(Cell::None, Cell::Num)
    }

    fn human(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Num(n) => thousands(*n),
            Cell::Share(r) => format!("{:.1}%", r * 100.0),
            Cell::None => "-".into(),
        }
    }

    fn tsv(&self) -> String {
        match self {
            Cell::Text(s) => s.replace(['\t', '\n', '\r'], " "),
            Cell::Num(n) => n.to_string(),
            Cell::Share(r) => format!("{}", (r * 10_000.0).round() / 10_000.0),
            Cell::None => String::new(),
        }
    }

    fn is_number(&self) -> bool {
        matches!(self, Cell::Num(_) | Cell::Share(_))
    }
}

/// A header and rows of cells; numeric columns are right-aligned for people.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub header: Vec<&'static str>,
    pub rows: Vec<Vec<Cell>>,
    /// The column shortened (its cells' starts cut to `…`) when the table is wider than the
    /// terminal: a path, whose end tells it apart.
    pub shrink: Option<usize>,
}

impl Table {
    pub fn new(header: &[&'static str]) -> Table {
        Table {
            header: header.to_vec(),
            rows: Vec::new(),
            shrink: None,
        }
    }

    pub fn push(&mut self, row: Vec<Cell>) {
        self.rows.push(row);
    }

    /// [`Table::human`] at most `width` columns wide where the [`Table::shrink`] column
    /// can be cut to fit (never below 12 characters); as it is without a width.
    pub fn human_within(&self, width: Option<usize>) -> String {
        let (Some(width), Some(col)) = (width, self.shrink) else {
            return self.human();
        };
        let cells = |i: usize| {
            let heads = std::iter::once(self.header[i].chars().count());
            heads.chain(
                self.rows
                    .iter()
                    .filter_map(move |r| r.get(i).map(|c| c.human().chars().count())),
            )
        };
        let widths: Vec<usize> = (0..self.header.len())
            .map(|i| cells(i).max().unwrap_or(0))
            .collect();
        let others: usize = widths
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != col)
            .map(|(_, w)| w)
            .sum();
        let room = width.saturating_sub(others + 2 * widths.len().saturating_sub(1));
        let fit = room.max(12);
        if widths[col] <= fit {
            return self.human();
        }
        let mut cut = self.clone();
        for row in &mut cut.rows {
            if let Some(Cell::Text(t)) = row.get_mut(col) {
                *t = cut_start(t, fit);
            }
        }
        cut.human()
    }

    /// Aligned columns, numbers right-aligned (see [`table`]).
    pub fn human(&self) -> String {
        let right: Vec<usize> = (0..self.header.len())
            .filter(|&i| {
                self.rows
                    .iter()
                    .any(|r| r.get(i).is_some_and(Cell::is_number))
            })
            .collect();
        let rows: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| r.iter().map(Cell::human).collect())
            .collect();
        table(&self.header, &rows, &right)
    }

    /// A header line, then one line per row, cells separated by tabs, numbers raw.
    pub fn tsv(&self) -> String {
        let mut out = self.header.join("\t");
        for row in &self.rows {
            out.push('\n');
            out.push_str(&row.iter().map(Cell::tsv).collect::<Vec<_>>().join("\t"));
        }
        out
    }
}

/// Formats rows with columns padded to their widest cell; columns listed in `right` are
/// right-aligned (numbers).
pub fn table(header: &[&str], rows: &[Vec<String>], right: &[usize]) -> String {
    let cols = header.len();
    let mut widths: Vec<usize> = header.iter().map(|h| visible_width(h)).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate().take(cols) {
            widths[i] = widths[i].max(visible_width(cell));
        }
    }
    let mut out = String::new();
    let mut push_row = |cells: Vec<&str>| {
        let mut line = String::new();
        for (i, cell) in cells.iter().enumerate() {
            let pad = widths[i].saturating_sub(visible_width(cell));
            if i > 0 {
                line.push_str("  ");
            }
            if right.contains(&i) {
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            } else {
                line.push_str(cell);
                if i + 1 < cols {
                    line.push_str(&" ".repeat(pad));
                }
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    };
    push_row(header.to_vec());
    for row in rows {
        push_row(row.iter().map(String::as_str).collect());
    }
    out.pop();
    out
}

/// The columns `text` takes on a terminal: its characters less the colour escapes
/// (`ESC [ … m`) a painted cell carries.
pub fn visible_width(text: &str) -> usize {
    let mut n = 0;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for e in chars.by_ref() {
                if e.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            n += 1;
        }
    }
    n
}

/// `text` in at most `max` characters: its start cut to `…` when it is longer.
pub fn cut_start(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let keep = max.saturating_sub(1);
    let tail: String = text.chars().skip(n - keep).collect();
    format!("…{tail}")
}

/// `text` with every line indented by `width` spaces.
pub fn indent(text: &str, width: usize) -> String {
    let pad = " ".repeat(width);
    text.lines()
        .map(|l| format!("{pad}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `12345` → `12,345`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `-12345` → `-12,345`, `7` → `+7`: a difference, always signed.
pub fn signed_thousands(n: i64) -> String {
    let sign = if n < 0 { '-' } else { '+' };
    format!("{sign}{}", thousands(n.unsigned_abs()))
}

/// The provider's reported input beside ctxctl's count of the messages it covered, as the
/// human reports say it: `the same messages count 1,567 here (-16,089)`. The difference is
/// mostly what the agent sends besides its messages (system prompt, tools), not an error.
pub fn same_messages(input: u64, difference: i64) -> String {
    let ours = (input as i64).saturating_add(difference).max(0) as u64;
    format!(
        "the same messages count {} here ({})",
        thousands(ours),
        signed_thousands(difference)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_are_signed_and_grouped() {
        assert_eq!(signed_thousands(-16_089), "-16,089");
        assert_eq!(signed_thousands(0), "+0");
        assert_eq!(signed_thousands(1_234_567), "+1,234,567");
        assert_eq!(
            same_messages(17_656, -16_089),
            "the same messages count 1,567 here (-16,089)"
        );
    }

    #[test]
    fn aligns() {
        let t = table(
            &["a", "n"],
            &[
                vec!["xyz".into(), "5".into()],
                vec!["q".into(), "100".into()],
            ],
            &[1],
        );
        assert_eq!(t, "a      n\nxyz    5\nq    100");
    }

    #[test]
    fn tables_for_people_and_for_pipes() {
        let mut t = Table::new(&["name", "tokens", "use"]);
        t.push(vec![
            Cell::text("a\tb"),
            Cell::Num(12_345),
            Cell::Share(0.5),
        ]);
        t.push(vec![Cell::text("c"), Cell::None, Cell::Share(0.12345)]);
        assert_eq!(
            t.human(),
            "name  tokens    use\na\tb   12,345  50.0%\nc          -  12.3%"
        );
        assert_eq!(t.tsv(), "name\ttokens\tuse\na b\t12345\t0.5\nc\t\t0.1235");
    }

    #[test]
    fn a_table_wider_than_the_terminal_cuts_its_path_column_from_the_start() {
        let mut t = Table::new(&["n", "path"]);
        t.push(vec![
            Cell::Num(5),
            Cell::text("/home/u/projects/app/session-1.jsonl"),
        ]);
        t.push(vec![Cell::Num(12), Cell::text("short.jsonl")]);
        assert_eq!(t.human_within(Some(20)), t.human(), "no column to shrink");
        t.shrink = Some(1);
        assert_eq!(t.human_within(None), t.human());
        assert_eq!(t.human_within(Some(200)), t.human());
        let cut = t.human_within(Some(20));
        assert_eq!(cut, " n  path\n 5  …session-1.jsonl\n12  short.jsonl");
        assert!(cut.lines().all(|l| l.chars().count() <= 20), "{cut}");
        // Never below 12 characters, however narrow the terminal.
        assert!(t.human_within(Some(5)).contains(" …ion-1.jsonl\n"));
    }

    #[test]
    fn painted_cells_align_by_what_the_terminal_shows() {
        let ok = "\x1b[32mok\x1b[0m".to_string();
        let warn = "\x1b[33mwarn\x1b[0m".to_string();
        assert_eq!(visible_width(&ok), 2);
        let t = table(
            &["status", "n"],
            &[vec![ok.clone(), "1".into()], vec![warn, "2".into()]],
            &[],
        );
        let widths: Vec<usize> = t.lines().map(visible_width).collect();
        assert_eq!(widths, [9, 9, 9], "{t:?}");
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(100), "100");
    }
}
