//! ARCHITECTURE.md's layering, checked on the source: no module cycle at
//! any level of `src`, and no command module of `src/cli` used by another.
//!
//! Every file of `src` is a module (`adapt/drift.rs` is `adapt::drift`,
//! `adapt/mod.rs` is `adapt`). A file uses the modules its paths name:
//! `use` trees, `crate::…`, `super::…`, `self::…` and `mend::…` paths in
//! code, and paths through a child module it declares. A path that ends in
//! a name a module re-exports (`pub use drift::Drift`) uses the module the
//! name comes from. Two modules under one parent depend on each other when
//! a file anywhere inside one uses a module anywhere inside the other; a
//! child using its parent (or the parent its child) is how Rust modules
//! work and is not counted. Tests are left out: files named `tests.rs` or
//! `*_tests.rs`, folders named `tests`, and everything after a file's first
//! `#[cfg(test)]`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use regex::Regex;

use crate::support::source::{is_test_file, rust_files};

/// A module, as the path of its segments below the crate root.
type Module = Vec<String>;

/// The modules of `src/cli` that are not commands but what the commands
/// share (ARCHITECTURE.md: "no command module is used by another").
const CLI_SHARED: &[&str] = &["stdout", "logging", "review", "capture", "backend_file"];

#[test]
fn no_module_depends_on_a_sibling_that_depends_on_it() {
    let graph = Graph::of_source();
    let mut cycles = Vec::new();
    for (parent, edges) in graph.sibling_edges() {
        for cycle in cycles_among(&edges) {
            let name = if parent.is_empty() {
                "the crate".to_owned()
            } else {
                parent.join("::")
            };
            let mut lines = vec![format!("under {name}: {}", cycle.join(" → "))];
            for pair in cycle.windows(2) {
                for (from, to) in &edges[&(pair[0].clone(), pair[1].clone())] {
                    lines.push(format!("    {from} uses {to}"));
                }
            }
            cycles.push(lines.join("\n"));
        }
    }
    assert!(
        cycles.is_empty(),
        "module cycles (move what both sides need below them):\n{}",
        cycles.join("\n")
    );
}

#[test]
fn no_command_module_uses_another() {
    let graph = Graph::of_source();
    let mut found = Vec::new();
    for (module, uses) in &graph.uses {
        let [first, command, ..] = module.as_slice() else {
            continue;
        };
        if first != "cli" {
            continue;
        }
        for target in uses {
            if let [first, other, ..] = target.as_slice()
                && first == "cli"
                && other != command
                && !CLI_SHARED.contains(&other.as_str())
            {
                found.push(format!("{} uses {}", module.join("::"), target.join("::")));
            }
        }
    }
    assert!(
        found.is_empty(),
        "command modules used by another (move what they share into the library or cli/mod.rs):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_checker_sees_a_cycle_through_a_re_export() {
    let mut graph = Graph::default();
    graph.add("a/mod.rs", "mod x;\nmod y;\npub use y::Thing;\n");
    graph.add("a/x.rs", "use super::Thing;\n");
    graph.add("a/y.rs", "fn f() { super::x::g() }\n");
    graph.resolve();
    let edges = &graph.sibling_edges()[&vec!["a".to_owned()]];
    assert_eq!(cycles_among(edges), vec![vec!["x", "y", "x"]]);

    let mut graph = Graph::default();
    graph.add("a/mod.rs", "mod x;\nmod y;\n");
    graph.add("a/x.rs", "use super::y::{self, Thing as Other};\n");
    graph.add("a/y.rs", "// super::x::g() in a comment\nuse crate::b;\n");
    graph.add(
        "b.rs",
        "pub fn b() {}\n#[cfg(test)]\nmod tests { use crate::a::x; }\n",
    );
    graph.resolve();
    assert!(
        graph
            .sibling_edges()
            .values()
            .all(|e| cycles_among(e).is_empty())
    );
}

/// The modules of a source tree and what each uses.
#[derive(Default)]
struct Graph {
    /// Each module's code, tests and comments left out.
    code: BTreeMap<Module, String>,
    /// What each module re-exports: a name, and the path it stands for.
    exports: HashMap<Module, HashMap<String, Module>>,
    /// What each module uses, resolved to modules.
    uses: BTreeMap<Module, BTreeSet<Module>>,
}

/// Sibling `(from, to)` pairs under one parent, each with the files that
/// make it: `(file module, used module)`.
type Edges = BTreeMap<(String, String), BTreeSet<(String, String)>>;

impl Graph {
    fn of_source() -> Graph {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut graph = Graph::default();
        let files = rust_files(&src, true);
        for file in files.into_iter().filter(|f| !is_test_file(f)) {
            let rel = file
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&file).unwrap();
            graph.add(&rel, &text);
        }
        graph.resolve();
        assert!(graph.code.len() > 100, "the source tree was not found");
        graph
    }

    /// Adds the file at `rel` (relative to `src`) with its text.
    fn add(&mut self, rel: &str, text: &str) {
        let mut segments: Vec<String> = rel
            .trim_end_matches(".rs")
            .split('/')
            .map(str::to_owned)
            .collect();
        let last = segments.last().cloned().unwrap_or_default();
        if last == "main" {
            return;
        }
        if last == "mod" || last == "lib" {
            segments.pop();
        }
        self.code.insert(segments, without_tests_and_comments(text));
    }

    fn resolve(&mut self) {
        let modules: BTreeSet<Module> = self.code.keys().cloned().collect();
        for (module, code) in &self.code {
            let mut names = HashMap::new();
            for (tree, public) in use_trees(code) {
                if !public {
                    continue;
                }
                for (path, alias) in expand(&tree) {
                    if let Some(abs) = absolute(&modules, module, &path) {
                        names.insert(alias, abs);
                    }
                }
            }
            self.exports.insert(module.clone(), names);
        }
        let path_re =
            Regex::new(r"\b(?:crate|super|self|mend)(?:::[A-Za-z_][A-Za-z0-9_]*)+").unwrap();
        for (module, code) in &self.code {
            let mut paths: Vec<Vec<String>> = Vec::new();
            for (tree, _) in use_trees(code) {
                paths.extend(expand(&tree).into_iter().map(|(p, _)| p));
            }
            paths.extend(
                path_re
                    .find_iter(code)
                    .map(|m| m.as_str().split("::").map(str::to_owned).collect()),
            );
            for child in children(&modules, module) {
                let bare = Regex::new(&format!(r"(?:^|[^:\w]){child}::")).unwrap();
                if bare.is_match(code) {
                    paths.push(vec![child]);
                }
            }
            let used: BTreeSet<Module> = paths
                .iter()
                .filter_map(|p| absolute(&modules, module, p))
                .map(|abs| self.module_of(&modules, &abs, 0))
                .filter(|target| target != module)
                .collect();
            self.uses.insert(module.clone(), used);
        }
    }

    /// The module `path` names: its longest prefix that is a module, or,
    /// when the next segment is a name that module re-exports, the module
    /// that name comes from.
    fn module_of(&self, modules: &BTreeSet<Module>, path: &[String], depth: usize) -> Module {
        for len in (0..=path.len()).rev() {
            let prefix = path[..len].to_vec();
            if !modules.contains(&prefix) {
                continue;
            }
            if let Some(next) = path.get(len)
                && depth < 8
                && let Some(target) = self.exports.get(&prefix).and_then(|e| e.get(next))
            {
                let mut redirected = target.clone();
                redirected.extend_from_slice(&path[len + 1..]);
                return self.module_of(modules, &redirected, depth + 1);
            }
            return prefix;
        }
        Vec::new()
    }

    /// For each parent module, the uses between its children.
    fn sibling_edges(&self) -> BTreeMap<Module, Edges> {
        let mut out: BTreeMap<Module, Edges> = BTreeMap::new();
        for (module, uses) in &self.uses {
            for target in uses {
                let shared = module
                    .iter()
                    .zip(target)
                    .take_while(|(a, b)| a == b)
                    .count();
                if shared == module.len() || shared == target.len() {
                    continue;
                }
                out.entry(module[..shared].to_vec())
                    .or_default()
                    .entry((module[shared].clone(), target[shared].clone()))
                    .or_default()
                    .insert((module.join("::"), target.join("::")));
            }
        }
        out
    }
}

/// Each cycle among the siblings of `edges`, once, as the names along it
/// with the first repeated at the end.
fn cycles_among(edges: &Edges) -> Vec<Vec<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        next.entry(from).or_default().push(to);
    }
    let mut seen_sets = BTreeSet::new();
    let mut cycles = Vec::new();
    for &start in next.keys() {
        // A breadth-first search for the shortest way back to `start`.
        let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        let mut back = None;
        while let Some(node) = queue.pop_front() {
            for &n in next.get(node).into_iter().flatten() {
                if n == start {
                    back = Some(node);
                    break;
                }
                if !came_from.contains_key(n) {
                    came_from.insert(n, node);
                    queue.push_back(n);
                }
            }
            if back.is_some() {
                break;
            }
        }
        let Some(mut node) = back else { continue };
        let mut chain = Vec::new();
        while node != start {
            chain.push(node.to_owned());
            node = came_from[node];
        }
        let path: Vec<String> = std::iter::once(start.to_owned())
            .chain(chain.into_iter().rev())
            .chain(std::iter::once(start.to_owned()))
            .collect();
        let members: BTreeSet<String> = path.iter().cloned().collect();
        if seen_sets.insert(members) {
            cycles.push(path);
        }
    }
    cycles
}

/// The code of a file up to its first `#[cfg(test)]`, without comments.
fn without_tests_and_comments(text: &str) -> String {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    code.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .map(|line| line.split(" // ").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The use trees of `code`, each with whether it is a re-export.
fn use_trees(code: &str) -> Vec<(String, bool)> {
    let re = Regex::new(r"(?m)^\s*(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);").unwrap();
    re.captures_iter(code)
        .map(|c| {
            let tree: String = c[2]
                .chars()
                .filter(|ch| !ch.is_whitespace() || *ch == ' ')
                .collect();
            (
                tree.replace(" as ", "@").replace(' ', ""),
                c.get(1).is_some(),
            )
        })
        .collect()
}

/// The paths of a use tree (`a::{b, c::{d as e}}`), each with the name it
/// binds. `self` in a group names the group's module; a glob names it too.
fn expand(tree: &str) -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    expand_into(&[], tree, &mut out);
    out
}

fn expand_into(prefix: &[String], tree: &str, out: &mut Vec<(Vec<String>, String)>) {
    if let Some(open) = tree.find('{') {
        let mut head = prefix.to_vec();
        head.extend(
            tree[..open]
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
        );
        let inner = tree[open + 1..]
            .strip_suffix('}')
            .unwrap_or(&tree[open + 1..]);
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand_into(&head, &inner[start..i], out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        expand_into(&head, &inner[start..], out);
        return;
    }
    if tree.is_empty() {
        return;
    }
    let (path, alias) = match tree.split_once('@') {
        Some((p, a)) => (p, Some(a)),
        None => (tree, None),
    };
    let mut full = prefix.to_vec();
    for segment in path.split("::").filter(|s| !s.is_empty()) {
        if segment != "self" || full.is_empty() {
            full.push(segment.to_owned());
        }
    }
    if full.last().is_some_and(|s| s == "*") {
        full.pop();
    }
    let name = alias
        .map(str::to_owned)
        .or_else(|| full.last().cloned())
        .unwrap_or_default();
    out.push((full, name));
}

/// `path` as written in `module`, from the crate root; `None` for a path
/// into another crate.
fn absolute(modules: &BTreeSet<Module>, module: &Module, path: &[String]) -> Option<Vec<String>> {
    let first = path.first()?;
    match first.as_str() {
        "crate" | "mend" => Some(path[1..].to_vec()),
        "self" => Some(module.iter().chain(&path[1..]).cloned().collect()),
        "super" => {
            let ups = path.iter().take_while(|s| *s == "super").count();
            let base = module.get(..module.len().checked_sub(ups)?)?;
            Some(base.iter().chain(&path[ups..]).cloned().collect())
        }
        _ if children(modules, module).any(|c| c == *first) => {
            Some(module.iter().chain(path).cloned().collect())
        }
        _ => None,
    }
}

/// The names of `module`'s child modules.
fn children<'m>(
    modules: &'m BTreeSet<Module>,
    module: &'m Module,
) -> impl Iterator<Item = String> + 'm {
    modules
        .iter()
        .filter(move |m| m.len() == module.len() + 1 && m.starts_with(module))
        .map(|m| m[module.len()].clone())
}
