//! A bounded maximum matching between template children and a group of
//! another tree's children, where each template child accepts one bucket
//! of them.
//!
//! Greedy pairing in a fixed order is not enough: with masks, "more
//! specific" is no order. A `p` whose class is stable but whose children
//! come and go, and a `p` whose class came and went but whose children are
//! stable, each accept a child the other rejects; whichever pairs first can
//! take the child the other needed, and a template then fails to match a
//! load it learned. So the greedy pass is followed by Kuhn's augmenting
//! paths: a template child left alone may take a child already paired if
//! that child's partner can move to another it accepts, and so on.
//!
//! ## What it refuses
//!
//! Augmenting paths are quadratic at worst. The search stops after
//! [`STEPS_PER_CHILD`] steps per child of the group, all searches
//! together; what is still alone then stays alone. A group whose greedy
//! pass pairs everything costs nothing more.

/// Steps of the augmenting search allowed per child of a group, template
/// and page children together: a learned load needs a handful in a group
/// of any size; a thousand list items that no longer pair stop early.
pub const STEPS_PER_CHILD: usize = 64;

/// Pairs left vertices (template children, in the order they should be
/// served) with right vertices `0..right`: left vertex `i` accepts the
/// right vertices of `buckets[wants[i]]`, in order of preference. Returns
/// each left vertex's partner.
pub(super) fn match_buckets(
    wants: &[Option<usize>],
    buckets: &[Vec<usize>],
    right: usize,
) -> Vec<Option<usize>> {
    let mut m = Matching {
        partner: vec![None; wants.len()],
        owner: vec![None; right],
        seen: vec![0; right],
        epoch: 0,
        budget: STEPS_PER_CHILD.saturating_mul(wants.len() + right),
    };
    // The greedy pass: each bucket hands out its free vertices in order.
    let mut cursor = vec![0usize; buckets.len()];
    for (i, want) in wants.iter().enumerate() {
        let Some(b) = *want else { continue };
        let bucket = &buckets[b];
        while let Some(&j) = bucket.get(cursor[b]) {
            cursor[b] += 1;
            if m.owner[j].is_none() {
                m.pair(i, j);
                break;
            }
        }
    }
    for i in 0..wants.len() {
        if m.partner[i].is_none() && wants[i].is_some() && m.budget > 0 {
            m.augment(i, wants, buckets);
        }
    }
    m.partner
}

struct Matching {
    partner: Vec<Option<usize>>,
    owner: Vec<Option<usize>>,
    /// The search that last reached each right vertex.
    seen: Vec<u32>,
    epoch: u32,
    budget: usize,
}

impl Matching {
    fn pair(&mut self, i: usize, j: usize) {
        self.partner[i] = Some(j);
        self.owner[j] = Some(i);
    }

    /// One depth-first search for an augmenting path from the lone left
    /// vertex `start`, on an explicit stack (a path may be as long as the
    /// group). Each right vertex is entered at most once per search.
    fn augment(&mut self, start: usize, wants: &[Option<usize>], buckets: &[Vec<usize>]) -> bool {
        self.epoch += 1;
        // (left vertex, next index into its bucket), and the right vertex
        // each level chose on the way down.
        let mut stack = vec![(start, 0usize)];
        let mut chosen: Vec<usize> = Vec::new();
        while let Some(&(i, next)) = stack.last() {
            let bucket = wants[i].map_or(&[][..], |b| &buckets[b][..]);
            let Some(&j) = bucket.get(next) else {
                stack.pop();
                chosen.pop();
                continue;
            };
            if let Some(top) = stack.last_mut() {
                top.1 += 1;
            }
            if self.budget == 0 {
                return false;
            }
            self.budget -= 1;
            if self.seen[j] == self.epoch {
                continue;
            }
            self.seen[j] = self.epoch;
            chosen.push(j);
            match self.owner[j] {
                Some(other) => stack.push((other, 0)),
                None => {
                    for (&(i, _), &j) in stack.iter().zip(&chosen) {
                        self.pair(i, j);
                    }
                    return true;
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(
        wants: &[Option<usize>],
        buckets: &[&[usize]],
        right: usize,
        expected: &[Option<usize>],
    ) {
        let buckets: Vec<Vec<usize>> = buckets.iter().map(|b| b.to_vec()).collect();
        assert_eq!(match_buckets(wants, &buckets, right), expected);
    }

    #[test]
    fn greedy_serves_in_order() {
        check(&[Some(0), Some(0)], &[&[0, 1]], 2, &[Some(0), Some(1)]);
        check(
            &[Some(0), Some(0), None],
            &[&[1]],
            2,
            &[Some(1), None, None],
        );
    }

    #[test]
    fn a_child_taken_greedily_is_handed_back_along_a_path() {
        // Left 0 accepts anything, left 1 only right 0: greedy gives right
        // 0 to left 0, and the search moves left 0 on to right 1.
        check(
            &[Some(0), Some(1)],
            &[&[0, 1], &[0]],
            2,
            &[Some(1), Some(0)],
        );
        // A path through two moves: 2 wants 0, held by 0, who can take 1,
        // held by 1, who can take 2.
        check(
            &[Some(0), Some(1), Some(2)],
            &[&[0, 1], &[1, 2], &[0]],
            3,
            &[Some(1), Some(2), Some(0)],
        );
    }

    #[test]
    fn a_child_nobody_can_release_stays_alone() {
        check(&[Some(0), Some(0)], &[&[0]], 1, &[Some(0), None]);
    }

    #[test]
    fn a_large_group_that_cannot_pair_keeps_every_pair_it_had() {
        // A thousand children all want the same ten: the searches of the
        // other 990 fail (or run out of steps) without undoing a pair.
        let n = 1000;
        let wants = vec![Some(0); n];
        let buckets = vec![(0..10).collect::<Vec<_>>()];
        let partners = match_buckets(&wants, &buckets, n);
        assert_eq!(partners.iter().flatten().count(), 10);
    }
}
