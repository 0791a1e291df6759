//! A usage bar: `[██████████░░░░░░░░░░] 52.3%`.

/// Draws `ratio` (0..=1, clamped for drawing) as a bar `width` cells wide.
pub fn bar(ratio: f64, width: usize, unicode: bool) -> String {
    let clamped = if ratio.is_finite() {
        ratio.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let filled = (clamped * width as f64).round() as usize;
    let (full, empty) = if unicode { ("█", "░") } else { ("#", "-") };
    format!("[{}{}]", full.repeat(filled), empty.repeat(width - filled))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars() {
        assert_eq!(bar(0.5, 10, false), "[#####-----]");
        assert_eq!(bar(2.0, 4, false), "[####]");
        assert_eq!(bar(f64::NAN, 2, false), "[--]");
    }
}
