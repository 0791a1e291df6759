//! The lines of a matching message shown for it: each line with a match and `context`
//! lines around it, a long line cut to a window around its first match.

use std::ops::Range;

use super::Matcher;

/// Characters of a long line kept around its first match.
const WIDTH: usize = 240;

/// One line of a message, as shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// 1-based, within the message.
    pub number: usize,
    pub text: String,
    /// Whether it holds a match (else it is context).
    pub is_match: bool,
    /// The matches' byte ranges in `text`.
    pub ranges: Vec<Range<usize>>,
}

/// The lines of `text` to show for `m`'s matches, with `context` lines around them, and
/// how many matches there are. A match across lines marks each line it spans.
pub fn excerpt(text: &str, m: &Matcher, context: usize) -> (usize, Vec<Line>) {
    let found = m.find_all(text);
    if found.is_empty() {
        return (0, Vec::new());
    }
    let starts: Vec<usize> = std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
        .collect();
    let line_of = |at: usize| starts.partition_point(|&s| s <= at) - 1;
    let mut ranges: Vec<Vec<Range<usize>>> = Vec::new();
    let mut hit_lines: Vec<usize> = Vec::new();
    for r in &found {
        let (a, b) = (
            line_of(r.start),
            line_of(r.end.saturating_sub(1).max(r.start)),
        );
        for l in a..=b {
            let (ls, le) = bounds(text, &starts, l);
            let local = r.start.max(ls) - ls..r.end.min(le) - ls;
            match hit_lines.last() {
                Some(&last) if last == l => ranges.last_mut().expect("paired").push(local),
                _ => {
                    hit_lines.push(l);
                    ranges.push(vec![local]);
                }
            }
        }
    }
    let mut out: Vec<Line> = Vec::new();
    let mut shown = 0usize; // lines before this one are already out
    for (i, &l) in hit_lines.iter().enumerate() {
        let from = l.saturating_sub(context).max(shown);
        let to = (l + context).min(starts.len() - 1);
        for n in from..=to {
            if n < shown {
                continue;
            }
            let (ls, le) = bounds(text, &starts, n);
            let rs = hit_lines[i..]
                .iter()
                .position(|&h| h == n)
                .map(|k| ranges[i + k].clone())
                .unwrap_or_default();
            out.push(cut(&text[ls..le], n + 1, rs));
            shown = n + 1;
        }
    }
    (found.len(), out)
}

/// Line `l`'s byte range, without its line break.
fn bounds(text: &str, starts: &[usize], l: usize) -> (usize, usize) {
    let s = starts[l];
    let mut e = starts.get(l + 1).map_or(text.len(), |n| n - 1);
    if e > s && text.as_bytes()[e - 1] == b'\r' {
        e -= 1;
    }
    (s, e)
}

/// `line` cut to [`WIDTH`] characters around its first match, `…` where it was cut.
fn cut(line: &str, number: usize, ranges: Vec<Range<usize>>) -> Line {
    let is_match = !ranges.is_empty();
    if line.len() <= WIDTH {
        return Line {
            number,
            text: line.to_string(),
            is_match,
            ranges,
        };
    }
    let focus = ranges.first().map_or(0, |r| r.start);
    let mut start = focus.saturating_sub(WIDTH / 3);
    while !line.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + WIDTH).min(line.len());
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    let lead = if start > 0 { "…" } else { "" };
    let tail = if end < line.len() { "…" } else { "" };
    let shift = lead.len() as isize - start as isize;
    let ranges = ranges
        .into_iter()
        .filter(|r| r.start >= start && r.end <= end)
        .map(|r| (r.start as isize + shift) as usize..(r.end as isize + shift) as usize)
        .collect();
    Line {
        number,
        text: format!("{lead}{}{tail}", &line[start..end]),
        is_match,
        ranges,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::MatchOptions;

    fn m(p: &str) -> Matcher {
        Matcher::new(p, MatchOptions::default()).unwrap()
    }

    #[test]
    fn matching_lines_with_their_context_each_once() {
        let text = "a\nb\nneedle\nc\nneedle again\nd\ne\nf";
        let (n, lines) = excerpt(text, &m("needle"), 1);
        assert_eq!(n, 2);
        let shown: Vec<(usize, bool)> = lines.iter().map(|l| (l.number, l.is_match)).collect();
        assert_eq!(
            shown,
            vec![(2, false), (3, true), (4, false), (5, true), (6, false)]
        );
        assert_eq!(lines[1].ranges, vec![0..6]);
    }

    #[test]
    fn a_match_across_a_newline_marks_both_lines() {
        let (n, lines) = excerpt("one\ntwo", &m("one\ntwo"), 0);
        assert_eq!(n, 1);
        assert_eq!(lines.len(), 2);
        assert!(lines.iter().all(|l| l.is_match));
    }

    #[test]
    fn a_long_line_is_cut_around_its_match() {
        let text = format!("{}needle{}", "x".repeat(1000), "y".repeat(1000));
        let (_, lines) = excerpt(&text, &m("needle"), 0);
        let l = &lines[0];
        assert!(l.text.starts_with('…') && l.text.ends_with('…'));
        assert_eq!(&l.text[l.ranges[0].clone()], "needle");
    }
}
