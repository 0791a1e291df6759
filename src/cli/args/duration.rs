//! Durations on the command line: `90s`, `45m`, `12h`, `30d`, `2w`, and sums like `1d12h`.

/// Parses a duration into seconds (clap value parser).
pub fn parse_secs(s: &str) -> Result<u64, String> {
    let bad = || {
        format!("invalid duration {s:?}: expected a number and a unit (s, m, h, d, w), e.g. 30d or 1d12h")
    };
    let t = s.trim();
    if t.is_empty() {
        return Err(bad());
    }
    let (mut total, mut num, mut digits) = (0u64, 0u64, 0usize);
    for c in t.chars() {
        if let Some(d) = c.to_digit(10) {
            num = num
                .checked_mul(10)
                .and_then(|n| n.checked_add(u64::from(d)))
                .ok_or_else(bad)?;
            digits += 1;
            continue;
        }
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'w' => 604_800,
            _ => return Err(bad()),
        };
        if digits == 0 {
            return Err(bad());
        }
        total = num
            .checked_mul(unit)
            .and_then(|n| total.checked_add(n))
            .ok_or_else(bad)?;
        (num, digits) = (0, 0);
    }
    if digits != 0 {
        return Err(bad());
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_sums() {
        assert_eq!(parse_secs("90s"), Ok(90));
        assert_eq!(parse_secs("45m"), Ok(2700));
        assert_eq!(parse_secs("30d"), Ok(30 * 86_400));
        assert_eq!(parse_secs("2w"), Ok(14 * 86_400));
        assert_eq!(parse_secs("1d12h"), Ok(86_400 + 12 * 3600));
        assert_eq!(parse_secs("0d"), Ok(0));
        for bad in ["", "30", "d", "3x", "-1d", "1.5d", "99999999999999999999d"] {
            assert!(parse_secs(bad).is_err(), "{bad}");
        }
    }
}
