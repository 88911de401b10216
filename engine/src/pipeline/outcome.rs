//! What deciding one document gives: kept ([`Outcome::New`]), the duplicate of a held
//! document ([`Outcome::Duplicate`] with its [`Match`]), or not a document ([`Outcome::Bad`]).
//! The filter's decision (`super::decision`) gives the first two; the command line writes
//! them through [`Verdict`], the output's borrowed view of a match.

use crate::input::{BadLine, DocId};
use crate::output::Verdict;

/// What was decided for one document: the one result type of the filter's decision
/// ([`super::Deduper::add`] returns it; the command line writes it as a line or a row).
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The first of its kind: kept, and held in the window for the documents after it.
    New,
    /// An exact copy or a near duplicate of a kept document.
    Duplicate(Match),
    /// Not a document (no tokens after normalisation). `--on-bad-line pass` keeps it, `skip`
    /// leaves it out; under `fail`, [`super::Deduper::add`] returns an error instead.
    Bad(BadLine),
}

/// The kept document a duplicate matched.
#[derive(Clone, Debug, PartialEq)]
pub struct Match {
    /// Its id.
    pub dup_of: DocId,
    /// Their similarity (1 for an exact copy).
    pub similarity: f64,
    /// Whether the two normalised texts are equal.
    pub exact: bool,
    /// Whether it is a document of the `--against` reference.
    pub in_reference: bool,
}

impl Match {
    /// The output's view of this match; `against` as in [`Verdict::reference`] (`None`:
    /// no reference, so none is named).
    pub(crate) fn verdict(&self, against: Option<bool>) -> Verdict<'_> {
        Verdict {
            dup_of: Some(&self.dup_of),
            similarity: self.similarity,
            copy: self.exact,
            reference: if self.in_reference {
                Some(true)
            } else {
                against
            },
        }
    }
}
