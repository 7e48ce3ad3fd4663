//! Where a field of a task file is: the line a problem is reported at.
//! Checks run on the parsed task, which keeps no positions, so the line is
//! found again in the text by the file's shape: top-level keys, then one
//! `[[steps]]` block per step, found by its `id`, with its `[steps.args]`.

use adfarm_suite::toml_lines::assigns;

/// 1-based line of `field` in `text`: a top-level key when `step` is none
/// (`answer.from` is found at `answer`), else in that step's block (`tool`,
/// `after`, `args.fields`...), falling back to the step's `id` line, then
/// to line 1.
pub fn line_of(text: &str, step: Option<&str>, field: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let first_block = lines
        .iter()
        .position(|l| l.trim() == "[[steps]]")
        .unwrap_or(lines.len());
    let key = field.split(['.', '[']).next().unwrap_or(field);
    let Some(step) = step else {
        return lines[..first_block]
            .iter()
            .position(|l| assigns(l, key))
            .map_or(1, |i| i + 1);
    };
    let id_line = format!("\"{step}\"");
    let mut start = first_block;
    while start < lines.len() {
        let end = lines[start + 1..]
            .iter()
            .position(|l| l.trim() == "[[steps]]")
            .map_or(lines.len(), |i| start + 1 + i);
        let block = &lines[start..end];
        let is_step = block
            .iter()
            .any(|l| assigns(l, "id") && l.split_once('=').map(|x| x.1.trim()) == Some(&id_line));
        if is_step {
            let found = |k: &str| block.iter().position(|l| assigns(l, k));
            let at = match field.strip_prefix("args.") {
                Some(arg) => {
                    let arg = arg.split(['.', '[']).next().unwrap_or(arg);
                    let args = block.iter().position(|l| l.trim() == "[steps.args]");
                    args.and_then(|a| {
                        block[a..]
                            .iter()
                            .position(|l| assigns(l, arg))
                            .map(|i| a + i)
                    })
                    .or(args)
                    .or_else(|| found("args"))
                }
                None => found(key),
            };
            return start + 1 + at.or_else(|| found("id")).unwrap_or(0);
        }
        start = end;
    }
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"id = "T"
tier = "L1"
answer = { kind = "number", from = "s2.output" }

[[steps]]
id = "s1"
tool = "get_user_account_list"
[steps.args]
"user_id" = "{user}"

[[steps]]
id = "s2"
tool = "calculator"
after = ["s1"]
[steps.args]
"code" = "print(1)"
"#;

    #[test]
    fn fields_are_found_at_their_own_lines() {
        assert_eq!(line_of(TEXT, None, "tier"), 2);
        assert_eq!(line_of(TEXT, None, "answer.from"), 3);
        assert_eq!(line_of(TEXT, Some("s1"), "tool"), 7);
        assert_eq!(line_of(TEXT, Some("s2"), "tool"), 13);
        assert_eq!(line_of(TEXT, Some("s2"), "after"), 14);
        assert_eq!(line_of(TEXT, Some("s2"), "args.code"), 16);
        assert_eq!(line_of(TEXT, Some("s1"), "args.user_id"), 9);
        // An argument the file does not have: the step's args table.
        assert_eq!(line_of(TEXT, Some("s1"), "args.page_size"), 8);
        // A field the step does not state: its id line.
        assert_eq!(line_of(TEXT, Some("s1"), "key_args"), 6);
        assert_eq!(line_of(TEXT, Some("s9"), "tool"), 1);
    }
}
