//! `--diff`: what fixing would change, as a unified diff per file.

/// The unified diff of `old` and `new`, the file at `path`, with three lines of context;
/// empty when they are equal. The path is shown as given (escaped for the terminal by the
/// caller's writer).
pub fn unified(path: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}
