//! Fixing: the edits that fix a finding ([`crate::diagnostic::Fix`]), made on the spec's own bytes so that every other byte
//! (indentation, key order, a minified line) stays as it was. [`edits`] turns a rule's fix into
//! edits for one finding; [`apply`] applies the fixes of a file's findings and checks the
//! result; [`diff`] shows what would change.

pub mod apply;
pub mod diff;
mod edits;
pub mod write;

pub use edits::fix_for;
