//! The one figure `check`, `compact --if-needed`, `trim`'s default budget, `stats` and
//! `count` share: the input tokens of the session's next request.
//!
//! An agent sends more than its transcript holds (its system prompt, tool schemas, ...).
//! Where the file records the provider's usage, that hidden part is the reported prompt of
//! the latest response minus ctxctl's count of the messages that request held; the next
//! request is the hidden part plus ctxctl's count of the live thread. Without usage it is
//! ctxctl's count of the messages.
//!
//! Claude has no public tokenizer: where the transcript records usage for several
//! responses, the session's own ratio between Claude's count and ctxctl's tokenizer is
//! taken from the growth of the reported prompt between them ("calibrated"), instead of
//! the fixed default factor.

use serde::Serialize;

use crate::session::ReportedUsage;
use crate::tokens::Counter;

/// Where the predicted figure comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NextSource {
    /// The provider's reported usage plus the model's own tokenizer for what came after.
    Reported,
    /// The provider's reported usage plus estimates scaled by the session's own ratio.
    Calibrated,
    /// The model's own tokenizer, no recorded usage.
    Tokenizer,
    /// The provider's token-counting endpoint.
    Api,
    /// An estimate (no public tokenizer, no recorded usage).
    Estimate,
    /// The hidden part measured before a rewrite (`trim`, `compact`), carried over to the
    /// file it wrote (see [`crate::cache::carried`]), plus ctxctl's count of the messages.
    Carried,
    /// The hidden part measured on the reports before the agent's own compaction (no
    /// report since), plus ctxctl's count of the messages.
    Compacted,
}

impl NextSource {
    pub fn name(self) -> &'static str {
        match self {
            NextSource::Reported => "reported",
            NextSource::Calibrated => "calibrated",
            NextSource::Tokenizer => "tokenizer",
            NextSource::Api => "api",
            NextSource::Estimate => "estimate",
            NextSource::Carried => "carried",
            NextSource::Compacted => "compacted",
        }
    }
}

/// The predicted input of the next request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prediction {
    pub tokens: usize,
    pub source: NextSource,
    /// What the request holds besides ctxctl's total of the messages (`tokens − total`):
    /// the agent's hidden part. What a rewrite leaves of the messages adds to it.
    pub overhead: usize,
    /// The session's Claude-to-tokenizer ratio, when calibrated.
    pub ratio: Option<f64>,
}

impl Prediction {
    /// The next request of messages totalling `total` whose hidden part a rewrite carried
    /// (see [`crate::cache::carried`]): what the rewrite reported, while the agent has not
    /// yet reported a request of its own.
    pub fn carried(total: usize, overhead: usize) -> Prediction {
        Prediction {
            tokens: total + overhead,
            source: NextSource::Carried,
            overhead,
            ratio: None,
        }
    }
}

/// The hidden part assumed where the session has no live usage to learn it from (see
/// [`crate::ops::prior`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prior {
    pub tokens: usize,
    /// Measured on the session's own reports before the agent compacted it, not assumed.
    pub measured: bool,
    /// The session's Claude-to-tokenizer ratio calibrated on those reports (see
    /// [`session_ratio`]): the messages after the agent's boundary are counted at it, as
    /// a calibrated prediction counts the whole thread.
    pub ratio: Option<f64>,
}

impl Prior {
    /// A documented figure, not a measurement of this session.
    pub fn assumed(tokens: usize) -> Prior {
        Prior {
            tokens,
            measured: false,
            ratio: None,
        }
    }
}

/// Calibration needs at least this many tokenizer tokens of growth between reports.
const MIN_CALIBRATION_TOKENS: f64 = 200.0;
/// Ratios outside this range are taken as noise (a report that jumped for other reasons).
const RATIO_RANGE: (f64, f64) = (0.8, 3.0);

/// The next request of a session whose messages count `counts` (already scaled by
/// `factor`, the default estimate factor; 1.0 for exact tokenizers), given its live usage.
/// `extra` is what a request body sends besides its messages (its tools), counted; files
/// with usage have it in their hidden part. `prior` is the agent's hidden part when there
/// is no usage to learn it from (see [`crate::ops::prior`]): a figure that uses an assumed
/// one is an estimate, one measured before the agent's compaction is `compacted`.
pub fn predict(
    usage: Option<&ReportedUsage>,
    counts: &[usize],
    extra: usize,
    exact: bool,
    factor: f64,
    prior: Prior,
) -> Prediction {
    let total = Counter::total(counts);
    let Some(u) = usage else {
        // Measured before the agent's compaction and calibrated there: the messages as
        // the provider would count them (the priming tokens as they are).
        let ratio = prior.ratio.filter(|_| prior.measured && factor != 1.0);
        let counted = match ratio {
            Some(r) => {
                let raw: usize = counts.iter().sum();
                let scaled = (raw as f64 * r / factor).round() as usize;
                scaled + total.saturating_sub(raw)
            }
            None => total,
        };
        let tokens = counted + extra + prior.tokens;
        return Prediction {
            tokens,
            source: if prior.measured {
                NextSource::Compacted
            } else if exact && prior.tokens == 0 {
                NextSource::Tokenizer
            } else {
                NextSource::Estimate
            },
            overhead: tokens.saturating_sub(total),
            ratio,
        };
    };
    let ratio = ratio_of(u, counts, factor);
    // The counts as the provider would count them.
    let scale = ratio.map_or(1.0, |r| r / factor);
    let scaled = |c: &[usize]| -> f64 { c.iter().map(|&n| n as f64).sum::<f64>() * scale };
    let all = scaled(counts) + total.saturating_sub(counts.iter().sum()) as f64;
    let tokens = match u.request_end {
        Some(end) => hidden_scaled(u, counts, end, scale) + all,
        None => {
            // Only where the report ends is known: its prompt and reply, then the rest.
            let after = u.after_message.map_or(counts.len(), |i| i + 1);
            let rest = scaled(counts.get(after..).unwrap_or_default());
            (u.input_tokens + u.output_tokens) as f64 + rest
        }
    };
    let tokens = tokens.round() as usize;
    Prediction {
        tokens,
        source: if ratio.is_some() {
            NextSource::Calibrated
        } else {
            NextSource::Reported
        },
        overhead: tokens.saturating_sub(total),
        ratio,
    }
}

/// The session's ratio of the provider's count to ctxctl's tokenizer, calibrated on `u`'s
/// reports over `counts` (scaled by `factor`); `None` for exact tokenizers (`factor`
/// 1.0) or when the reports tell too little.
pub fn session_ratio(u: &ReportedUsage, counts: &[usize], factor: f64) -> Option<f64> {
    ratio_of(u, counts, factor)
}

/// The session's calibrated ratio, for estimates (`factor` ≠ 1.0).
fn ratio_of(u: &ReportedUsage, counts: &[usize], factor: f64) -> Option<f64> {
    if factor != 1.0 {
        calibration(u, counts, factor)
    } else {
        None
    }
}

/// The reported prompt less what the next request no longer sends, less ctxctl's count of
/// the messages the reported request held (`counts[..end]`), at `scale` (provider tokens
/// per counted token): never below 0.
fn hidden_scaled(u: &ReportedUsage, counts: &[usize], end: usize, scale: f64) -> f64 {
    let covered: f64 = counts[..end.min(counts.len())]
        .iter()
        .map(|&n| n as f64)
        .sum::<f64>()
        * scale;
    let held = u.input_tokens as f64 - u.dropped as f64 * scale;
    (held - covered).max(0.0)
}

/// The hidden part the thread's earliest reported request held besides its messages, as
/// [`predict`] measures it of the latest (`counts`: each message's count, scaled by
/// `factor` as the session's count is; calibrated on all of `u`'s reports where they
/// allow). The earliest request held the fewest messages, so what ctxctl's count of a
/// long history misses (which later reports fold into their hidden part) weighs least
/// there: it is the system prompt and tools, what a compaction leaves. `None` when the
/// file does not say where the requests ended.
pub fn first_hidden_part(u: &ReportedUsage, counts: &[usize], factor: f64) -> Option<usize> {
    u.request_end?;
    let scale = ratio_of(u, counts, factor).map_or(1.0, |r| r / factor);
    let first = match u.earlier.iter().find(|&&(end, input)| input > 0 && end > 0) {
        Some(&(end, input)) => ReportedUsage {
            input_tokens: input,
            request_end: Some(end),
            dropped: 0,
            earlier: Vec::new(),
            ..*u
        },
        None => u.clone(),
    };
    let end = first.request_end?;
    Some(hidden_scaled(&first, counts, end, scale).round() as usize)
}

/// The ratio of the provider's count to ctxctl's tokenizer, fitted on the prompt's growth
/// between consecutive reports: each pair of reports is one measurement (the messages added
/// between the two requests against the reported prompt's growth). The fit is a weighted
/// median — robust to a report that jumped for other reasons (a reminder, a file the agent
/// attached) — weighted by the growth measured and, by half every few pairs, to the most
/// recent turns. `None` when the file gives too little growth to tell.
///
/// The pairs are measured again as needed rather than held: a 2 GB transcript's 600K reports made
/// 9.6 MB of points and as many of pairs at the end of its read, its peak. Only the pairs
/// whose weight is not zero are kept for the median (about the 7,000 latest, past which
/// the recency weight is below the smallest `f64`): one of weight zero moves neither the
/// total nor the running sum, so it is never the median, and the result is the same.
fn calibration(u: &ReportedUsage, counts: &[usize], factor: f64) -> Option<f64> {
    let latest = (u.request_end?, u.input_tokens);
    // (ratio, growth counted) of each pair of consecutive reports that tells the ratio.
    let measured = || {
        let points = (u.earlier.iter().copied())
            .chain([latest])
            .filter(|&(_, r)| r > 0);
        let mut before = None;
        points.filter_map(move |(b, rb)| {
            let (a, ra) = before.replace((b, rb))?;
            if b <= a || rb < ra || b > counts.len() {
                return None;
            }
            let ours: f64 = counts[a..b].iter().map(|&n| n as f64 / factor).sum();
            if ours < MIN_PAIR_TOKENS {
                return None;
            }
            let ratio = (rb - ra) as f64 / ours;
            (RATIO_RANGE.0..=RATIO_RANGE.1)
                .contains(&ratio)
                .then_some((ratio, ours))
        })
    };
    let counted: f64 = measured().map(|(_, n)| n).sum();
    if counted < MIN_CALIBRATION_TOKENS {
        return None;
    }
    let n = measured().count();
    let weighted: Vec<(f64, f64)> = measured()
        .enumerate()
        .map(|(i, (r, grown))| (r, grown * RECENCY.powi((n - 1 - i) as i32)))
        .filter(|&(_, w)| w != 0.0)
        .collect();
    weighted_median(weighted)
}

/// Pairs of reports whose messages grew by fewer tokenizer tokens than this tell nothing
/// about the ratio (rounding, a reminder the agent added).
const MIN_PAIR_TOKENS: f64 = 20.0;
/// The weight of a measurement, per pair of reports it is older than the latest.
const RECENCY: f64 = 0.9;

/// The value at which half the weight lies on either side.
fn weighted_median(mut values: Vec<(f64, f64)>) -> Option<f64> {
    values.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = values.iter().map(|&(_, w)| w).sum();
    let mut seen = 0.0;
    for (v, w) in values {
        seen += w;
        if seen >= total / 2.0 {
            return Some(v);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`calibration`] as it was, holding every point and pair.
    fn calibration_held(u: &ReportedUsage, counts: &[usize], factor: f64) -> Option<f64> {
        let latest = (u.request_end?, u.input_tokens);
        let points: Vec<(usize, u64)> = (u.earlier.iter().copied())
            .chain([latest])
            .filter(|&(_, r)| r > 0)
            .collect();
        let mut pairs: Vec<(f64, f64)> = Vec::new();
        for pair in points.windows(2) {
            let ((a, ra), (b, rb)) = (pair[0], pair[1]);
            if b <= a || rb < ra || b > counts.len() {
                continue;
            }
            let ours: f64 = counts[a..b].iter().map(|&n| n as f64 / factor).sum();
            let ratio = (rb - ra) as f64 / ours;
            if ours >= MIN_PAIR_TOKENS && (RATIO_RANGE.0..=RATIO_RANGE.1).contains(&ratio) {
                pairs.push((ratio, ours));
            }
        }
        let counted: f64 = pairs.iter().map(|&(_, n)| n).sum();
        if counted < MIN_CALIBRATION_TOKENS {
            return None;
        }
        let n = pairs.len();
        let weighted = (pairs.iter().enumerate())
            .map(|(i, &(r, grown))| (r, grown * RECENCY.powi((n - 1 - i) as i32)))
            .collect();
        weighted_median(weighted)
    }

    #[test]
    fn calibration_over_many_reports_is_the_held_one() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for reports in [0, 1, 3, 50, 8_000, 20_000] {
            let counts: Vec<usize> = (0..reports * 2 + 2)
                .map(|_| (next() % 400) as usize)
                .collect();
            let mut prompt = 1_000u64;
            let mut earlier = Vec::new();
            for k in 0..reports {
                // Mostly growing by about the counted growth, now and then shrinking or
                // jumping, some reports of zero.
                let grown: usize = counts[2 * k..2 * k + 2].iter().sum();
                prompt = match next() % 20 {
                    0 => prompt / 2,
                    1 => prompt + 50_000,
                    _ => prompt + (grown as u64 * (90 + next() % 30)) / 100,
                };
                earlier.push((2 * k + 2, if next() % 15 == 0 { 0 } else { prompt }));
            }
            let last = earlier.pop().unwrap_or((1, 1_000));
            let u = usage(last.1, last.0, earlier);
            for factor in [1.0, 1.2] {
                let got = calibration(&u, &counts, factor);
                assert_eq!(
                    got,
                    calibration_held(&u, &counts, factor),
                    "{reports} reports"
                );
                if reports >= 8_000 {
                    assert!(got.is_some(), "{reports} reports calibrate");
                }
            }
        }
    }

    fn usage(input: u64, end: usize, earlier: Vec<(usize, u64)>) -> ReportedUsage {
        ReportedUsage {
            input_tokens: input,
            output_tokens: 50,
            after_message: Some(end),
            request_end: Some(end),
            earlier,
            dropped: 0,
        }
    }

    #[test]
    fn without_usage_the_prior_hidden_part_makes_an_estimate() {
        let p = predict(None, &[10, 20], 5, true, 1.0, Prior::assumed(1000));
        assert_eq!(
            (p.tokens, p.source, p.overhead),
            (1038, NextSource::Estimate, 1005)
        );
        // Usage, when there is some, is what counts.
        let u = usage(1030, 2, vec![]);
        assert_eq!(
            predict(Some(&u), &[10, 20, 40], 0, true, 1.0, Prior::assumed(500)).tokens,
            1073
        );
    }

    #[test]
    fn a_hidden_part_measured_before_the_agents_compaction_is_named() {
        let measured = Prior {
            tokens: 20_000,
            measured: true,
            ratio: None,
        };
        let p = predict(None, &[10, 20], 0, false, 1.2, measured);
        assert_eq!(
            (p.tokens, p.source, p.overhead),
            (20_033, NextSource::Compacted, 20_000)
        );
    }

    #[test]
    fn after_the_agents_compaction_the_messages_count_at_the_sessions_ratio() {
        // Calibrated at 1.5 before the boundary, counts at 1.2: the 1,200 counted tokens
        // after it are 1,500 of the provider's, the 3 priming tokens stay 3.
        let measured = Prior {
            tokens: 20_000,
            measured: true,
            ratio: Some(1.5),
        };
        let p = predict(None, &[600, 600], 0, false, 1.2, measured);
        assert_eq!(
            (p.tokens, p.source, p.overhead, p.ratio),
            (21_503, NextSource::Compacted, 20_300, Some(1.5))
        );
        // An exact tokenizer, or an assumed prior, keeps the count as it is.
        assert_eq!(
            predict(None, &[600, 600], 0, true, 1.0, measured).tokens,
            21_203
        );
        let assumed = Prior {
            measured: false,
            ..measured
        };
        assert_eq!(
            predict(None, &[600, 600], 0, false, 1.2, assumed).tokens,
            21_203
        );
    }

    #[test]
    fn the_first_hidden_part_is_measured_at_the_earliest_report() {
        // Calibrated at 1.5 (as in the test below): the hidden part is the report less
        // 1.5 x the raw count of what the request held. The latest request holds 4,850
        // besides its messages; the earliest (one message of 100 raw) 4,850 too.
        let counts = [120, 600, 600, 120];
        let u = usage(5_000 + 1_500, 3, vec![(1, 5_000)]);
        assert_eq!(first_hidden_part(&u, &counts, 1.2), Some(4_850));
        // A history that ctxctl counts short grows the latest hidden part; the earliest
        // keeps the agent's own (5,000 - 150).
        let u = usage(9_500, 3, vec![(1, 5_000), (2, 5_750)]);
        assert_eq!(first_hidden_part(&u, &counts, 1.2), Some(4_850));
        // A partial report of 0 is no measurement; without earlier reports, the latest.
        let u = usage(1_030, 2, vec![(1, 0)]);
        assert_eq!(first_hidden_part(&u, &[10, 20, 40], 1.0), Some(1_000));
        let mut boundless = u.clone();
        boundless.request_end = None;
        assert_eq!(first_hidden_part(&boundless, &[10, 20], 1.0), None);
    }

    #[test]
    fn without_usage_the_local_count() {
        let p = predict(None, &[10, 20], 0, true, 1.0, Prior::assumed(0));
        assert_eq!(
            (p.tokens, p.source, p.overhead),
            (33, NextSource::Tokenizer, 0)
        );
        assert_eq!(
            predict(None, &[10], 0, false, 1.2, Prior::assumed(0)).source,
            NextSource::Estimate
        );
    }

    #[test]
    fn the_hidden_part_is_added_to_the_live_thread() {
        // The request before message 2 held 30 counted tokens and was reported as 1030:
        // 1000 hidden; the thread now counts 10+20+40+5 (+3 priming).
        let u = usage(1030, 2, vec![]);
        let p = predict(Some(&u), &[10, 20, 40, 5], 0, true, 1.0, Prior::assumed(0));
        assert_eq!(p.tokens, 1000 + 78);
        assert_eq!((p.source, p.overhead), (NextSource::Reported, 1000));
    }

    #[test]
    fn a_report_smaller_than_the_count_leaves_no_negative_hidden_part() {
        let u = usage(10, 2, vec![]);
        let p = predict(Some(&u), &[100, 100, 5], 0, true, 1.0, Prior::assumed(0));
        assert_eq!((p.tokens, p.overhead), (208, 0));
    }

    #[test]
    fn estimates_are_calibrated_on_the_reported_growth() {
        // Counts are ×1.2 of the tokenizer; between the two requests 1,200 scaled (1,000
        // raw) tokens were added and the report grew by 1,500: ratio 1.5.
        let counts = [120, 600, 600, 120];
        let u = usage(5_000 + 1_500, 3, vec![(1, 5_000)]);
        let p = predict(Some(&u), &counts, 0, false, 1.2, Prior::assumed(0));
        assert_eq!(p.source, NextSource::Calibrated);
        assert!((p.ratio.unwrap() - 1.5).abs() < 1e-9);
        // Hidden: 6500 − 1.5 × 1100 raw = 4850; all: 1.5 × 1200 raw + 3 priming.
        assert_eq!(p.tokens, 4_850 + 1_800 + 3);
    }

    #[test]
    fn one_report_that_jumped_does_not_pull_the_ratio() {
        // Three pairs grow 1.5x the tokenizer; one jumps 20x on a little growth (a report
        // the history does not explain): the weighted median stays at 1.5.
        let counts = [1200, 1200, 1200, 60, 1200];
        let u = usage(
            10_000 + 1_500 + 1_500 + 1_000 + 1_500,
            5,
            vec![(1, 10_000), (2, 11_500), (3, 13_000), (4, 14_000)],
        );
        let p = predict(Some(&u), &counts, 0, false, 1.2, Prior::assumed(0));
        assert!((p.ratio.unwrap() - 1.5).abs() < 1e-9, "{:?}", p.ratio);
        // A report of 0 (a partial record) is no measurement.
        let u = usage(11_500, 2, vec![(1, 0)]);
        assert_eq!(
            predict(Some(&u), &counts, 0, false, 1.2, Prior::assumed(0)).ratio,
            None
        );
    }

    #[test]
    fn what_the_next_request_no_longer_sends_comes_off_the_report() {
        // The report held 300 tokens of reasoning a user message has since closed.
        let mut u = usage(1_330, 2, vec![]);
        u.dropped = 300;
        let p = predict(Some(&u), &[10, 20, 40], 0, true, 1.0, Prior::assumed(0));
        assert_eq!(p.tokens, 1_000 + 73);
    }

    #[test]
    fn too_little_growth_keeps_the_default_factor() {
        let u = usage(5_010, 2, vec![(1, 5_000)]);
        let p = predict(Some(&u), &[120, 12, 12], 0, false, 1.2, Prior::assumed(0));
        assert_eq!((p.source, p.ratio), (NextSource::Reported, None));
    }

    #[test]
    fn without_a_request_boundary_the_report_and_what_follows() {
        let u = ReportedUsage {
            input_tokens: 900,
            output_tokens: 100,
            after_message: Some(1),
            request_end: None,
            earlier: vec![],
            dropped: 0,
        };
        let p = predict(Some(&u), &[10, 20, 30], 0, true, 1.0, Prior::assumed(0));
        assert_eq!(p.tokens, 1_030);
    }
}
