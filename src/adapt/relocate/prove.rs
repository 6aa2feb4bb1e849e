//! The proof of a choice: the XPath generated for the chosen nodes, the
//! page extracted again with it, and the pattern's constraints checked.
//!
//! ## What it refuses
//!
//! An XPath that is the pattern's own, a person's rejected one, a union of
//! positions for a record, one that tests the page's unstable parts, one
//! that selects on the page the pattern was captured on more nodes than its
//! `max` allows or only nodes it did not select there, and any whose
//! re-extraction breaks the pattern's constraints.

use super::*;

/// Generates the XPath for an assignment and proves it by extracting again.
pub(super) fn prove(
    env: &Env<'_>,
    wrapper: &Wrapper,
    pattern: &Pattern,
    path: &PatternPath,
    scopes: &[Item],
    chosen: &Assignment,
) -> Result<(String, Wrapper, Extraction), String> {
    let instances: Vec<Instance> = scopes
        .iter()
        .zip(&chosen.targets)
        .map(|(&context, targets)| Instance {
            context,
            targets: targets.clone(),
        })
        .collect();
    let options = GenerateOptions {
        max_alternatives: 8,
        // What the wrapper learned to change from load to load (`mend
        // learn`) is no anchor: it would select nothing on the next load.
        unstable: env.unstable_parts(),
        // The layout every page of the site shares is the anchor a later
        // page keeps: its landmarks are preferred.
        landmarks: env.frame().cloned().unwrap_or_default(),
        // The page the pattern was captured on is a second page of the
        // site: a test of a value it held too (a class both pages carry) is
        // preferred to one this page alone has (a recipe's name in a
        // button's attribute, a heading's slug as its id), which would
        // select nothing on the site's other pages.
        seen: env
            .grams
            .get(path)
            .map(|g| env.seen_values(g))
            .unwrap_or_default(),
        selections: Some(std::sync::Arc::clone(&env.selections)),
        ..GenerateOptions::default()
    };
    let generated = generate_for_instances(env.doc, &instances, &options)
        .map_err(|e| format!("no XPath could be written for the chosen nodes: {e}"))?;
    // A record's instances are named by one expression of container and
    // item; a union of one positional path per instance fits this page only
    // and breaks at the next added item.
    if pattern.is_record() && generated.fallback && generated.xpath.contains(" | ") {
        return Err(format!(
            "no single expression selects the chosen instances, only a union of their positions ({})",
            generated.xpath
        ));
    }
    let mut refused = None;
    let xpath = std::iter::once(generated.xpath.clone())
        .chain(generated.alternatives.iter().cloned())
        .filter(|x| !env.rejections.contains(path, x) && x != pattern.xpath.source())
        .find(|x| match misses_capture_page(env, path, pattern, x) {
            Some(why) => {
                refused.get_or_insert(why);
                false
            }
            None => true,
        })
        .ok_or_else(|| {
            refused.unwrap_or_else(|| {
                "every XPath written for the chosen nodes was rejected before".to_owned()
            })
        })?;
    let compiled = XPath::compile(&xpath)
        .map_err(|e| format!("the generated XPath {xpath} does not compile: {e}"))?;
    let mut healed = wrapper.clone();
    if let Some(p) = healed.pattern_mut(path) {
        p.xpath = compiled;
    }
    let extraction = extract(&healed, env.doc, env.page_url);
    let own: Vec<&Violation> = extraction
        .violations
        .iter()
        .filter(|v| v.pattern == *path)
        .filter(|v| {
            !pattern.is_record()
                || matches!(
                    v.constraint,
                    ViolationKind::Min
                        | ViolationKind::Max
                        | ViolationKind::Required
                        | ViolationKind::Xpath
                )
        })
        .collect();
    if let Some(v) = own.first() {
        return Err(format!(
            "{xpath} fails the constraints: {} expected {}, found {}{}",
            v.constraint,
            v.expected,
            v.found,
            if own.len() > 1 {
                format!(" (and {} more)", own.len() - 1)
            } else {
                String::new()
            }
        ));
    }
    Ok((xpath, healed, extraction))
}

/// Why `xpath` fails on the whole page the pattern was captured on, where
/// the wrapper held: it selects more nodes there than the pattern's `max`
/// allows, or only nodes the pattern did not select there. `None` when it
/// holds, or cannot be told (no kept page, a nested pattern, whose
/// captured nodes are not known). Selecting nothing there is no failure: a
/// redesign may have renamed every value the new XPath tests. An XPath that
/// fails there would give another element, or several, on every page still
/// in the capture's layout.
fn misses_capture_page(
    env: &Env<'_>,
    path: &PatternPath,
    pattern: &Pattern,
    xpath: &str,
) -> Option<String> {
    let trip = env.seen_values(env.grams.get(path)?).round_trip(xpath)?;
    let at = "on the page the pattern was captured on";
    match pattern.constraints.max {
        Some(max) if trip.selected > max => Some(format!(
            "{xpath} selects {} nodes {at}, where it allows at most {max}",
            trip.selected
        )),
        _ if trip.selected > 0 && trip.shared == 0 => Some(format!(
            "{xpath} selects other nodes {at} than the pattern did"
        )),
        _ => None,
    }
}

/// The constraints of `pattern`, each with whether it holds after the adaptation.
pub(super) fn checks(
    pattern: &Pattern,
    path: &PatternPath,
    violations: &[Violation],
) -> Vec<Check> {
    use ViolationKind as K;
    let c = &pattern.constraints;
    let declared = [
        (K::Min, c.min.is_some()),
        (K::Max, c.max.is_some()),
        (K::Required, c.required),
        (K::Regex, c.regex.is_some()),
        (K::MinLength, c.min_length.is_some()),
        (K::MaxLength, c.max_length.is_some()),
        (K::Enum, c.one_of.is_some()),
        (K::Minimum, c.minimum.is_some()),
        (K::Maximum, c.maximum.is_some()),
        (K::Schema, c.schema.is_some()),
        (
            K::Type,
            pattern.value_type != crate::wrapper::ValueType::String,
        ),
    ];
    declared
        .into_iter()
        .filter(|&(_, on)| on)
        .map(|(kind, _)| {
            let failed = violations
                .iter()
                .find(|v| v.pattern == *path && v.constraint == kind);
            Check {
                constraint: kind.as_str().to_owned(),
                passed: failed.is_none(),
                detail: failed
                    .map(|v| format!("expected {}, found {}", v.expected, v.found))
                    .unwrap_or_default(),
            }
        })
        .collect()
}

/// The first values of the pattern at `path` in a page's record.
pub(crate) fn values_at(record: &Map<String, Value>, path: &[String]) -> Vec<Value> {
    let mut current: Vec<&Value> = Vec::new();
    let Some((first, rest)) = path.split_first() else {
        return Vec::new();
    };
    if let Some(v) = record.get(first) {
        current.push(v);
    }
    for name in rest {
        current = current
            .into_iter()
            .flat_map(|v| match v {
                Value::Array(items) => items.iter().collect::<Vec<_>>(),
                other => vec![other],
            })
            .filter_map(|v| v.as_object()?.get(name))
            .collect();
    }
    let mut out = Vec::new();
    for v in current {
        match v {
            Value::Array(items) if path.len() == 1 || !items.iter().all(Value::is_object) => {
                out.extend(items.iter().cloned())
            }
            other => out.push(other.clone()),
        }
        if out.len() >= SAMPLES {
            break;
        }
    }
    out.truncate(SAMPLES);
    out
}

pub(super) fn name(algorithm: Algorithm) -> &'static str {
    algorithm.as_str()
}
