//! UTC timestamps without a date crate: seconds since the Unix epoch, formatted with the
//! days-from-civil algorithm (Howard Hinnant, "chrono-Compatible Low-Level Date Algorithms").
//!
//! The engine never reads the clock; the CLI passes a [`Timestamp`] in (honouring its
//! `CTXCTL_NOW` override), so archive names and summary metadata are reproducible in tests.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

/// A point in time, whole seconds since 1970-01-01T00:00:00Z.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

/// Why a timestamp could not be parsed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("invalid timestamp {0:?}: expected seconds since the epoch or YYYY-MM-DDTHH:MM:SSZ")]
pub struct TimestampError(pub String);

impl Timestamp {
    pub fn from_unix(secs: i64) -> Timestamp {
        Timestamp(secs)
    }

    /// Converts a `SystemTime` (the CLI's clock), truncating to whole seconds.
    pub fn from_system(t: SystemTime) -> Timestamp {
        match t.duration_since(UNIX_EPOCH) {
            Ok(d) => Timestamp(i64::try_from(d.as_secs()).unwrap_or(i64::MAX)),
            Err(e) => Timestamp(-i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX)),
        }
    }

    pub fn unix(self) -> i64 {
        self.0
    }

    /// Parses seconds since the epoch (`1700000000`) or a UTC RFC 3339 time
    /// (`2024-05-01T12:00:00Z`, also the compact `20240501T120000Z`).
    pub fn parse(s: &str) -> Result<Timestamp, TimestampError> {
        let err = || TimestampError(s.to_string());
        let t = s.trim();
        if let Ok(n) = t.parse::<i64>() {
            return Ok(Timestamp(n));
        }
        let digits: String = t.chars().filter(char::is_ascii_digit).collect();
        let shape_ok = match t.len() {
            20 => {
                let b = t.as_bytes();
                b[4] == b'-' && b[7] == b'-' && b[10] == b'T' && b[13] == b':' && b[16] == b':'
            }
            16 => t.as_bytes()[8] == b'T',
            _ => false,
        };
        if !shape_ok || !t.ends_with('Z') || digits.len() != 14 {
            return Err(err());
        }
        let num = |r: std::ops::Range<usize>| digits[r].parse::<i64>().map_err(|_| err());
        let (y, mo, d) = (num(0..4)?, num(4..6)?, num(6..8)?);
        let (h, mi, se) = (num(8..10)?, num(10..12)?, num(12..14)?);
        if !(1..=12).contains(&mo)
            || d < 1
            || d > days_in_month(y, mo)
            || h > 23
            || mi > 59
            || se > 60
        {
            return Err(err());
        }
        Ok(Timestamp(
            days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + se,
        ))
    }

    fn parts(self) -> (i64, i64, i64, i64, i64, i64) {
        let days = self.0.div_euclid(86_400);
        let secs = self.0.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        (y, m, d, secs / 3600, secs % 3600 / 60, secs % 60)
    }

    /// `2024-05-01T12:00:00Z`.
    pub fn rfc3339(self) -> String {
        let (y, m, d, h, mi, s) = self.parts();
        format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
    }

    /// `20240501T120000Z`, as used in archive file names.
    pub fn compact(self) -> String {
        let (y, m, d, h, mi, s) = self.parts();
        format!("{y:04}{m:02}{d:02}T{h:02}{mi:02}{s:02}Z")
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rfc3339())
    }
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of the proleptic Gregorian date `y-m-d`.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The inverse of [`days_from_civil`].
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_instants_format() {
        assert_eq!(Timestamp(0).rfc3339(), "1970-01-01T00:00:00Z");
        // 2000-02-29 (a leap day in a century leap year) 12:34:56.
        assert_eq!(Timestamp(951_827_696).rfc3339(), "2000-02-29T12:34:56Z");
        assert_eq!(Timestamp(1_700_000_000).compact(), "20231114T221320Z");
        assert_eq!(Timestamp(-1).rfc3339(), "1969-12-31T23:59:59Z");
    }

    #[test]
    fn parse_round_trips_every_day_of_several_years() {
        let mut day = days_from_civil(1999, 1, 1);
        while day < days_from_civil(2005, 1, 1) {
            let t = Timestamp(day * 86_400 + 3_723);
            assert_eq!(Timestamp::parse(&t.rfc3339()), Ok(t));
            assert_eq!(Timestamp::parse(&t.compact()), Ok(t));
            day += 1;
        }
    }

    #[test]
    fn parse_accepts_epoch_seconds_and_rejects_nonsense() {
        assert_eq!(Timestamp::parse("1700000000"), Ok(Timestamp(1_700_000_000)));
        for bad in [
            "",
            "2024-02-30T00:00:00Z",
            "2024-01-01 00:00:00Z",
            "2024-01-01T00:00:00",
            "yesterday",
        ] {
            assert!(Timestamp::parse(bad).is_err(), "{bad}");
        }
    }
}
