//! Exit codes (grep-style) and the broken-pipe rule.

use std::process::ExitCode;

/// How a run ended. Multi-file runs keep the worst status seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExitStatus {
    /// 0: success; `check`: every session below its threshold and valid.
    Success,
    /// 1: `check` found a session at/over its threshold, over its limit, or broken;
    /// `--dry-run` found changes to make.
    Failure,
    /// 2: usage error, unreadable or malformed input, I/O error.
    Error,
    /// 3: the summarizer failed after its retries; nothing was changed.
    SummarizerFailed,
}

impl ExitStatus {
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Failure => 1,
            ExitStatus::Error => 2,
            ExitStatus::SummarizerFailed => 3,
        }
    }

    /// The worse of two statuses (an error outranks a failed check).
    pub fn worst(self, other: ExitStatus) -> ExitStatus {
        self.max(other)
    }
}

impl From<ExitStatus> for ExitCode {
    fn from(s: ExitStatus) -> ExitCode {
        ExitCode::from(s.code())
    }
}

/// Whether any error in the chain is a broken pipe (`ctxctl count big.json | head -1`).
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worst_wins() {
        assert_eq!(
            ExitStatus::Success.worst(ExitStatus::Failure),
            ExitStatus::Failure
        );
        assert_eq!(
            ExitStatus::Error.worst(ExitStatus::Failure),
            ExitStatus::Error
        );
    }

    #[test]
    fn broken_pipe_is_found_in_the_chain() {
        let io = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "pipe");
        let err = anyhow::Error::new(io).context("writing output");
        assert!(is_broken_pipe(&err));
        assert!(!is_broken_pipe(&anyhow::anyhow!("other")));
    }
}
