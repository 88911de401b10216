//! Lines that are not documents: counted, the first few said (as notes) with their place,
//! and passed through, skipped or fatal as `--on-bad-line` says. One reporter for every
//! command that reads lines (the filter, `verify-pairs`, `clusters --from-edges`) and for the
//! reference texts given to `Deduper`, so they all count and fail the same way.

use super::settings::BadLinePolicy;
use crate::error::{Error, Note, Notes, Result};
use std::fmt::Display;

/// Counts bad lines and reports the first few of them.
#[derive(Debug)]
pub struct BadLines {
    policy: BadLinePolicy,
    quiet: bool,
    limit: u64,
    reported: u64,
    count: u64,
    /// The first one's reason.
    first: Option<String>,
}

impl BadLines {
    /// A reporter with this policy that reports at most `limit` lines (none when `quiet`).
    pub fn new(policy: BadLinePolicy, limit: usize, quiet: bool) -> BadLines {
        BadLines {
            policy,
            quiet,
            limit: limit as u64,
            reported: 0,
            count: 0,
            first: None,
        }
    }

    /// Counts a bad line at `place` (`FILE:LINE`). Under `--on-bad-line fail` it is the
    /// error returned; otherwise it is reported while under the limit, with what happened
    /// to it (`action`: "skipped", "passed through").
    pub fn add(
        &mut self,
        place: String,
        reason: &dyn Display,
        action: &str,
        diag: &mut (impl Notes + ?Sized),
    ) -> Result<()> {
        self.count += 1;
        if self.policy == BadLinePolicy::Fail {
            return Err(Error::BadLine {
                place,
                reason: reason.to_string(),
            });
        }
        if self.first.is_none() {
            self.first = Some(reason.to_string());
        }
        if !self.quiet && self.reported < self.limit {
            self.reported += 1;
            diag.note(Note::info(format!("{place}: {reason} ({action})")));
        }
        Ok(())
    }

    /// Bad lines counted.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The first bad line's reason, if any was passed or skipped (not the one that failed).
    pub fn first(&self) -> Option<&str> {
        self.first.as_deref()
    }

    /// The closing line, when more bad lines were counted than reported.
    pub fn finish(&self, diag: &mut (impl Notes + ?Sized)) {
        if !self.quiet && self.reported < self.count {
            diag.note(Note::info(format!(
                "{} bad lines in all ({} not shown; policy ‹on-bad-line› {})",
                self.count,
                self.count - self.reported,
                policy_name(self.policy)
            )));
        }
    }
}

/// The `--on-bad-line` value of a policy.
pub(crate) fn policy_name(p: BadLinePolicy) -> &'static str {
    match p {
        BadLinePolicy::Pass => "pass",
        BadLinePolicy::Skip => "skip",
        BadLinePolicy::Fail => "fail",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_up_to_the_limit_then_a_total() {
        let mut bad = BadLines::new(BadLinePolicy::Skip, 2, false);
        let mut diag = crate::error::WordedWriter::new(Vec::new(), crate::error::Wording::Flags);
        for line in 1..=5 {
            bad.add(format!("in:{line}"), &"invalid JSON", "skipped", &mut diag)
                .unwrap();
        }
        bad.finish(&mut diag);
        assert_eq!(bad.count(), 5);
        assert_eq!(
            String::from_utf8(diag.into_inner()).unwrap(),
            "neardup: in:1: invalid JSON (skipped)\nneardup: in:2: invalid JSON (skipped)\n\
             neardup: 5 bad lines in all (3 not shown; policy --on-bad-line skip)\n"
        );
    }

    #[test]
    fn fail_is_an_error_naming_the_place() {
        let mut bad = BadLines::new(BadLinePolicy::Fail, 10, false);
        let mut diag: Vec<Note> = Vec::new();
        match bad.add("in:7".into(), &"empty line", "skipped", &mut diag) {
            Err(Error::BadLine { place, reason }) => {
                assert_eq!((place.as_str(), reason.as_str()), ("in:7", "empty line"));
            }
            other => panic!("expected a bad-line error, got {other:?}"),
        }
        assert!(diag.is_empty());
    }

    #[test]
    fn quiet_reports_nothing() {
        let mut bad = BadLines::new(BadLinePolicy::Pass, 10, true);
        let mut diag: Vec<Note> = Vec::new();
        bad.add("in:1".into(), &"x", "passed through", &mut diag)
            .unwrap();
        bad.finish(&mut diag);
        assert!(diag.is_empty());
        assert_eq!(bad.count(), 1);
    }
}
