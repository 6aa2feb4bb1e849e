//! The JavaScript mend evaluates in a page, and the shapes of its answers.
//!
//! Every script is a self-contained expression. The one value that comes
//! from outside, an action's XPath, enters as a JSON string literal, which
//! is a JavaScript string literal too (since ES2019 even with U+2028 and
//! U+2029 in it), so no XPath can end the string early or run code.
//!
//! ## What it refuses
//!
//! No text but an action's XPath enters a script, and only as a string
//! literal put in once: an XPath that holds the placeholder's name is not
//! replaced again. The click script skips matched elements that are detached
//! or not visible, and stops at the first visible one that is disabled
//! (`disabled`, or `aria-disabled="true"`) rather than try the next.
//! [`DOM_VERSION`] does not count changes to `style` or `class` attributes,
//! and a number that is zero or NaN does not match.

use serde::Deserialize;

/// The placeholder in a template that [`with_xpath`] replaces.
const XPATH: &str = "__MEND_XPATH__";

/// `text` as a JavaScript string literal.
pub(super) fn js_string(text: &str) -> String {
    // Serialising a `str` to JSON cannot fail.
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

/// `template` with its XPath placeholder replaced by `xpath` as a string
/// literal; the replacement is made in one pass, so an XPath that contains
/// the placeholder's name is not replaced again.
fn with_xpath(template: &str, xpath: &str) -> String {
    template.replacen(XPATH, &js_string(xpath), 1)
}

/// A token that changes whenever the DOM changes: an id of the document,
/// the number of changes a `MutationObserver` on it has seen, and the
/// document's ready state. The observer is installed on first use in each
/// document (a navigation starts a new one, and a new id), under a symbol,
/// out of the page's own names. Changes to `style` and `class` attributes
/// are not counted: carousels, spinners and animations change them for
/// ever, and they change no content; nodes, text and other attributes (a
/// lazy image's `src`) are counted.
pub(super) const DOM_VERSION: &str = r#"(() => {
  const key = Symbol.for("mend.settle");
  let state = window[key];
  if (!state || state.doc !== document) {
    state = { doc: document, id: Math.random().toString(36).slice(2), n: 0 };
    window[key] = state;
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.type !== "attributes" || (r.attributeName !== "style" && r.attributeName !== "class")) { state.n += 1; }
      }
    }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  }
  return state.id + ":" + state.n + ":" + document.readyState;
})()"#;

/// Scrolls the page's scrolling element to its bottom.
pub(super) const SCROLL_TO_BOTTOM: &str = r#"(() => {
  const root = document.scrollingElement || document.documentElement || document.body;
  if (root) { window.scrollTo(0, root.scrollHeight); }
  return true;
})()"#;

/// The serialised document (its doctype, then the root element's
/// `outerHTML`), the URL it now has, the HTTP status of the navigation that
/// loaded it (0 when the browser cannot say) and its media type.
pub(super) const SNAPSHOT: &str = r#"(() => {
  const doctype = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : "";
  const root = document.documentElement;
  const nav = performance.getEntriesByType("navigation")[0];
  return {
    html: doctype + (root ? root.outerHTML : ""),
    url: location.href,
    status: (nav && nav.responseStatus) || 0,
    media_type: document.contentType || "",
  };
})()"#;

/// What [`SNAPSHOT`] gives.
#[derive(Debug, Deserialize, PartialEq, Eq)]
pub(super) struct Snapshot {
    /// The serialised document.
    pub html: String,
    /// `location.href`.
    pub url: String,
    /// The navigation's HTTP status; 0 when unknown.
    #[serde(default)]
    pub status: u16,
    /// `document.contentType`.
    #[serde(default)]
    pub media_type: String,
}

/// Looks for the first visible element `xpath` selects, scrolls it to the
/// middle of the viewport, and either gives the point to click it at (when
/// the element is what is there) or, when something covers it, clicks it
/// itself.
const CLICK_TEMPLATE: &str = r#"(() => {
  let found;
  try {
    found = document.evaluate(__MEND_XPATH__, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
  } catch (e) {
    return { state: "error", message: String((e && e.message) || e) };
  }
  let hidden = false;
  for (let i = 0; i < found.snapshotLength; i++) {
    let el = found.snapshotItem(i);
    if (el.nodeType !== Node.ELEMENT_NODE) { el = el.parentElement; }
    if (!el || !el.isConnected) { continue; }
    const visible = el.getClientRects().length > 0
      && (typeof el.checkVisibility !== "function" || el.checkVisibility({ visibilityProperty: true }));
    if (!visible) { hidden = true; continue; }
    if (el.disabled === true || el.getAttribute("aria-disabled") === "true") { return { state: "disabled" }; }
    el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
    const box = el.getBoundingClientRect();
    const x = box.left + box.width / 2;
    const y = box.top + box.height / 2;
    const there = document.elementFromPoint(x, y);
    if (there && (there === el || el.contains(there))) { return { state: "point", x: x, y: y }; }
    el.click();
    return { state: "clicked" };
  }
  return { state: hidden ? "hidden" : "missing" };
})()"#;

/// The script that finds (and perhaps clicks) the element to click.
pub(super) fn click(xpath: &str) -> String {
    with_xpath(CLICK_TEMPLATE, xpath)
}

/// What the click script found.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(tag = "state", rename_all = "lowercase")]
pub(super) enum ClickTarget {
    /// The element is at this point of the viewport, uncovered: a real
    /// mouse click there reaches it.
    Point {
        /// Horizontal position in CSS pixels.
        x: f64,
        /// Vertical position in CSS pixels.
        y: f64,
    },
    /// Something covers the element, so the script clicked it itself.
    Clicked,
    /// The element exists but is disabled.
    Disabled,
    /// Every element matched is hidden.
    Hidden,
    /// Nothing matched.
    Missing,
    /// The XPath failed in the page.
    Error {
        /// What the browser said.
        message: String,
    },
}

/// Evaluates `xpath` and converts the result to a boolean as XPath's
/// `boolean()` does: a non-empty node-set, a non-zero number, a non-empty
/// string.
const MATCHES_TEMPLATE: &str = r#"(() => {
  let r;
  try {
    r = document.evaluate(__MEND_XPATH__, document, null, XPathResult.ANY_TYPE, null);
  } catch (e) {
    return { state: "error", message: String((e && e.message) || e) };
  }
  switch (r.resultType) {
    case XPathResult.BOOLEAN_TYPE: return { state: "answer", matched: r.booleanValue };
    case XPathResult.NUMBER_TYPE: return { state: "answer", matched: r.numberValue !== 0 && !Number.isNaN(r.numberValue) };
    case XPathResult.STRING_TYPE: return { state: "answer", matched: r.stringValue.length > 0 };
    default: return { state: "answer", matched: r.iterateNext() !== null };
  }
})()"#;

/// The script that tells whether `xpath` matches.
pub(super) fn matches(xpath: &str) -> String {
    with_xpath(MATCHES_TEMPLATE, xpath)
}

/// What the match script found.
#[derive(Debug, Deserialize, PartialEq, Eq)]
#[serde(tag = "state", rename_all = "lowercase")]
pub(super) enum Match {
    /// The XPath evaluated.
    Answer {
        /// Whether it matched.
        matched: bool,
    },
    /// The XPath failed in the page.
    Error {
        /// What the browser said.
        message: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xpaths_become_string_literals_whatever_they_hold() {
        let check = |xpath: &str, expected: &str| assert_eq!(js_string(xpath), expected);
        check("//button", r#""//button""#);
        check(
            r#"//a[.="Show \"more\""]"#,
            r#""//a[.=\"Show \\\"more\\\"\"]""#,
        );
        check("//a[.='it''s']", r#""//a[.='it''s']""#);
        check("//p[contains(., '\n')]", r#""//p[contains(., '\n')]""#);
        check("a\u{2028}b\u{2029}c", "\"a\u{2028}b\u{2029}c\"");
        check("\0\u{1b}", r#""\u0000\u001b""#);
        check("</script><!--", r#""</script><!--""#);
        check("`${alert(1)}`", r#""`${alert(1)}`""#);
    }

    #[test]
    fn the_xpath_is_the_one_string_literal_placed_in_a_script() {
        let script = click("//button[@id='more'] | //*[.='\"); alert(1); (\"']");
        assert!(
            script.contains(
                r#"document.evaluate("//button[@id='more'] | //*[.='\"); alert(1); (\"']", document"#
            ),
            "{script}"
        );
        assert!(!script.contains(XPATH));
        // An XPath that names the placeholder stays a string.
        let script = matches(XPATH);
        assert!(script.contains(&format!("document.evaluate(\"{XPATH}\", document")));
        assert_eq!(script.matches(XPATH).count(), 1);
    }

    #[test]
    fn answers_are_read_by_their_state() {
        let click: ClickTarget =
            serde_json::from_str(r#"{"state":"point","x":10.5,"y":20}"#).unwrap();
        assert_eq!(click, ClickTarget::Point { x: 10.5, y: 20.0 });
        let click: ClickTarget = serde_json::from_str(r#"{"state":"hidden"}"#).unwrap();
        assert_eq!(click, ClickTarget::Hidden);
        let found: Match =
            serde_json::from_str(r#"{"state":"error","message":"not a valid XPath"}"#).unwrap();
        assert_eq!(
            found,
            Match::Error {
                message: "not a valid XPath".to_owned()
            }
        );
        let found: Match = serde_json::from_str(r#"{"state":"answer","matched":true}"#).unwrap();
        assert_eq!(found, Match::Answer { matched: true });
    }
}
