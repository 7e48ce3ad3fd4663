use super::*;

/// Splits and checks the no-text-lost invariant on every case.
fn split(text: &str) -> Vec<String> {
    let pieces = split_sentences(text);
    let squash = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    assert_eq!(
        squash(&pieces.concat()),
        squash(text),
        "pieces lost text: {pieces:?}"
    );
    for w in sentence_spans(text).windows(2) {
        assert!(w[0].end <= w[1].start, "overlapping spans");
    }
    pieces
}

#[test]
fn plain_sentences() {
    assert_eq!(
        split("The sky is blue. Grass is green! Is it? Yes."),
        ["The sky is blue.", "Grass is green!", "Is it?", "Yes."]
    );
}

#[test]
fn empty_and_whitespace_only_texts() {
    assert!(split("").is_empty());
    assert!(split("  \n\n\t ").is_empty());
}

#[test]
fn numbered_list_keeps_its_numbers() {
    let t = "Here are three tips:\n1. Sleep well.\n2. Eat greens.\n10. Walk daily.";
    assert_eq!(
        split(t),
        [
            "Here are three tips:",
            "1. Sleep well.",
            "2. Eat greens.",
            "10. Walk daily."
        ]
    );
}

#[test]
fn bullet_lists_with_two_sentences_per_item() {
    let t = "- First point. It has detail.\n* Second point\n+ Third point.";
    assert_eq!(
        split(t),
        [
            "- First point.",
            "It has detail.",
            "* Second point",
            "+ Third point."
        ]
    );
}

#[test]
fn headings_stand_alone() {
    let t = "## Overview\nParis is large. It is old.\n### 2. Food\nTry crêpes.";
    assert_eq!(
        split(t),
        [
            "## Overview",
            "Paris is large.",
            "It is old.",
            "### 2. Food",
            "Try crêpes."
        ]
    );
}

#[test]
fn latin_abbreviations_do_not_split() {
    assert_eq!(
        split("Use fruit, e.g. Apples or pears. Also i.e. Bananas work. Done."),
        [
            "Use fruit, e.g. Apples or pears.",
            "Also i.e. Bananas work.",
            "Done."
        ]
    );
}

#[test]
fn titles_do_not_split() {
    assert_eq!(
        split("Dr. Smith met Mr. Jones and Prof. Lee. They talked."),
        ["Dr. Smith met Mr. Jones and Prof. Lee.", "They talked."]
    );
}

#[test]
fn initials_and_dotted_acronyms_do_not_split() {
    assert_eq!(
        split("J. R. R. Tolkien lived in the U.K. Oxford was home. He wrote."),
        [
            "J. R. R. Tolkien lived in the U.K. Oxford was home.",
            "He wrote."
        ]
    );
}

#[test]
fn urls_keep_their_dots() {
    assert_eq!(
        split("Visit https://www.example.com/a.b?x=1. Then rest."),
        ["Visit https://www.example.com/a.b?x=1.", "Then rest."]
    );
    assert_eq!(
        split("See www.shop.co.uk for more. Bye."),
        ["See www.shop.co.uk for more.", "Bye."]
    );
}

#[test]
fn markdown_links_are_not_split_inside() {
    let t = "Try [Dr. Bean's Café. Best in town](https://bean.example/a.b). It is cozy.";
    assert_eq!(
        split(t),
        [
            "Try [Dr. Bean's Café. Best in town](https://bean.example/a.b).",
            "It is cozy."
        ]
    );
}

#[test]
fn decimals_and_versions_do_not_split() {
    assert_eq!(
        split("It costs $3.50 in v2.1. Next year 4.0 ships."),
        ["It costs $3.50 in v2.1.", "Next year 4.0 ships."]
    );
}

#[test]
fn lower_case_continuation_does_not_split() {
    assert_eq!(
        split("The approx. value is small. wait... really? Yes."),
        ["The approx. value is small. wait... really?", "Yes."]
    );
}

#[test]
fn quotes_and_brackets_close_the_sentence() {
    assert_eq!(
        split("He said \"Stop.\" Then he left. (It was late.) We slept."),
        [
            "He said \"Stop.\"",
            "Then he left.",
            "(It was late.)",
            "We slept."
        ]
    );
}

#[test]
fn bold_run_in_heading() {
    assert_eq!(
        split("1. **Louvre.** See the Mona Lisa. Book early."),
        ["1. **Louvre.**", "See the Mona Lisa.", "Book early."]
    );
}

#[test]
fn ellipsis_and_mixed_terminators() {
    assert_eq!(
        split("Wait... What?! Really?? Fine."),
        ["Wait...", "What?!", "Really??", "Fine."]
    );
}

#[test]
fn newlines_without_punctuation_are_boundaries() {
    assert_eq!(
        split("First line\nSecond line\r\n\r\nThird line"),
        ["First line", "Second line", "Third line"]
    );
}

#[test]
fn horizontal_rules_merge_into_the_previous_piece() {
    let t = "Intro text.\n\n---\n\nNext part.";
    assert_eq!(split(t), ["Intro text.\n\n---", "Next part."]);
}

#[test]
fn leading_markup_merges_into_the_next_piece() {
    assert_eq!(split("***\nHello there."), ["***\nHello there."]);
    assert_eq!(split("---"), ["---"]);
}

#[test]
fn fenced_code_stays_whole() {
    let t = "Run this:\n```sh\necho hi. Then\nls\n```\nDone.";
    assert_eq!(
        split(t),
        ["Run this:", "```sh\necho hi. Then\nls\n```", "Done."]
    );
}

#[test]
fn unclosed_fence_runs_to_the_end() {
    let t = "Code:\n```\nx = 1. Y = 2.";
    assert_eq!(split(t), ["Code:", "```\nx = 1. Y = 2."]);
}

#[test]
fn inline_code_is_not_split() {
    assert_eq!(
        split("Call `a.b(). C.d()` now. Done."),
        ["Call `a.b(). C.d()` now.", "Done."]
    );
}

#[test]
fn tables_keep_rows_and_rules() {
    let t = "| City | Days |\n|---|---|\n| Rome | 3 |";
    assert_eq!(split(t), ["| City | Days |\n|---|---|", "| Rome | 3 |"]);
}

#[test]
fn cjk_terminators_split_without_spaces() {
    assert_eq!(split("你好。我很好！谢谢"), ["你好。", "我很好！", "谢谢"]);
}

#[test]
fn blockquotes_and_nested_lists() {
    let t = "> Quote one. Quote two.\n  - nested item. Another.\n    a) sub item.";
    assert_eq!(
        split(t),
        [
            "> Quote one.",
            "Quote two.",
            "- nested item.",
            "Another.",
            "a) sub item."
        ]
    );
}

#[test]
fn numbers_ending_sentences_still_split() {
    assert_eq!(
        split("The answer is 42. It always was."),
        ["The answer is 42.", "It always was."]
    );
}

#[test]
fn ad_link_sentence_is_one_piece() {
    let t = "Pack light. [Osprey Farpoint](https://www.osprey.com/): A carry-on pack. Enjoy Rome!";
    assert_eq!(
        split(t),
        [
            "Pack light.",
            "[Osprey Farpoint](https://www.osprey.com/): A carry-on pack.",
            "Enjoy Rome!"
        ]
    );
}

#[test]
fn spans_are_trimmed_slices() {
    let t = "  A b.   C d.  \n";
    let spans = sentence_spans(t);
    assert_eq!(spans.len(), 2);
    assert_eq!(&t[spans[0].clone()], "A b.");
    assert_eq!(&t[spans[1].clone()], "C d.");
}

#[test]
fn unbalanced_bracket_only_suppresses_splitting() {
    let t = "See [1 for details. Then go. Ok.";
    assert_eq!(split(t), ["See [1 for details. Then go. Ok."]);
}

#[test]
fn generated_texts_never_lose_text_or_panic() {
    // Deterministic LCG over an alphabet of the characters the rules react to.
    let alphabet: Vec<char> = "aZ9 .!?…。\n\r\t#-*+>[]()`'\"”_:;,é中📦1)wwww.h://e.g."
        .chars()
        .collect();
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        (state >> 33) as usize
    };
    for _ in 0..3000 {
        let len = next() % 80;
        let text: String = (0..len)
            .map(|_| alphabet[next() % alphabet.len()])
            .collect();
        let pieces = split(&text);
        assert!(
            pieces.iter().all(|p| !p.trim().is_empty() && p.trim() == p),
            "{text:?}"
        );
    }
}
