//! How a head-bound search is ordered ([`OrderStats`]): the cost of each order of a rule's
//! head-bound plans, measured with the executor's work counters and kept across batches.
//! Shared by every algorithm that searches for one proof of a given fact: DRed's
//! rederivation and B/F's checks.

use crate::plan::RulePlan;

/// How a head-bound check is ordered, learned from the work counters: per rule, the work
/// (probes plus rows touched) and the number of checks made with each order of its plan.
///
/// No fixed order suits every graph. For `path(x, z) :- path(x, y), edge(y, z)` with x and z
/// bound, walking the successors of x costs 3–4× less than walking the parents of z on GO MF
/// and WordNet, and 7× more on a power-law graph whose edges lead to hubs (deterministic
/// counts over the same 20 single-edge deletions). Nor does the size of the first index group
/// predict it: a check stops at its first proof (measured: choosing by group size was slower).
/// So the plan's own order is tried on the first checks, then each other order once, then the
/// cheapest on average is used, and the others are tried again now and then so that a change
/// in the data can change the choice; old measurements fade by halving.
///
/// Why each other order only once before the budget below decides its next try (it used to
/// be tried as often as the first): a failing check can cost thousands of times more in one
/// order than in the other. Linear TC's nonlinear form over WordNet, `path(x, z) :- path(x,
/// y), path(y, z)` with x and z bound: the checks of single-edge deletions cost 1–3 probes
/// one way and about 10⁴ the other, so the 16 tries of the dear order cost 131,000–150,000
/// probes (5–6 ms) on the one batch that made them, where the batch's checks otherwise cost
/// 18 — in `dred`, in `bf`, and in `auto` whenever its algorithm met them.
///
/// Trying again is paid from a budget: the checks made with the cheapest order earn
/// 1/`EXPLORE_SHARE` of their work, and another order is tried once the budget covers its
/// mean cost (a try that costs more than that leaves a debt). So trying the others costs at
/// most about 1/32 of the work, however much worse they are. A fixed rate of one check in 64
/// did not bound it: on R-MAT, where the other order costs 10× more on a proof found and 80×
/// on a failing check, those tries were 11% of rederivation's probes and 21% of its rows
/// touched, and a single one could cost more than the rest of a small batch.
#[derive(Clone, Debug)]
pub struct OrderStats {
    /// Per rule, per order: (work, checks).
    per_rule: Vec<Vec<(u64, u64)>>,
    /// Per rule: work earned for trying orders other than the cheapest, minus work spent so.
    budget: Vec<i64>,
    /// Per rule: what the measurements say, worked out when they change rather than at each
    /// choice (a choice is made once or twice per check: 3.5% of a mid-sized R-MAT TC
    /// batch's instructions went to working it out each time).
    standing: Vec<Standing>,
}

/// Where the measurements of a rule's orders stand.
#[derive(Clone, Copy, Debug)]
enum Standing {
    /// One order only.
    Only,
    /// This order is to be tried: the first, fewer than [`EXPLORE`] times so far, or another
    /// not yet.
    Untried(usize),
    /// The order of lowest mean work, and the other order tried least.
    Ranked { best: usize, other: usize },
}

/// Checks with each order before the averages are trusted.
const EXPLORE: u64 = 16;
/// Sums are halved when an order's checks reach this, so old costs fade.
pub(crate) const HORIZON: u64 = 4096;
/// Trying the other orders may cost 1/`EXPLORE_SHARE` of the work of the cheapest.
const EXPLORE_SHARE: i64 = 32;

impl OrderStats {
    /// No measurements yet, for these plans.
    pub(crate) fn new(head_bound: &[Vec<RulePlan>]) -> Self {
        let orders: Vec<usize> = head_bound.iter().map(Vec::len).collect();
        Self::for_orders(&orders)
    }

    /// No measurements yet, for rules with these numbers of orders.
    fn for_orders(orders: &[usize]) -> Self {
        let mut stats = OrderStats {
            per_rule: orders.iter().map(|&n| vec![(0, 0); n]).collect(),
            budget: vec![0; orders.len()],
            standing: vec![Standing::Only; orders.len()],
        };
        for rule in 0..orders.len() {
            stats.rank(rule);
        }
        stats
    }

    /// Works out [`OrderStats::standing`] of rule `rule` from its measurements.
    fn rank(&mut self, rule: usize) {
        let stats = &self.per_rule[rule];
        self.standing[rule] = if stats.len() <= 1 {
            Standing::Only
        } else {
            match self.cheapest(rule) {
                Err(untried) => Standing::Untried(untried),
                Ok(best) => Standing::Ranked {
                    best,
                    other: (0..stats.len())
                        .filter(|&o| o != best)
                        .min_by_key(|&o| stats[o].1)
                        .expect("two orders or more"),
                },
            }
        };
    }

    /// The order of lowest mean work for rule `rule`, once the first order has been tried
    /// [`EXPLORE`] times and every other once; before, the order to try.
    fn cheapest(&self, rule: usize) -> Result<usize, usize> {
        let stats = &self.per_rule[rule];
        if stats[0].1 < EXPLORE {
            return Err(0);
        }
        if let Some(i) = stats.iter().position(|&(_, n)| n == 0) {
            return Err(i);
        }
        // Lowest mean work; w1/n1 < w2/n2 compared without division.
        Ok((0..stats.len())
            .min_by(|&a, &b| {
                let (wa, na) = stats[a];
                let (wb, nb) = stats[b];
                (u128::from(wa) * u128::from(nb)).cmp(&(u128::from(wb) * u128::from(na)))
            })
            .expect("at least one order"))
    }

    /// The order to use for the next check by rule `rule`.
    #[inline]
    pub(crate) fn choose(&self, rule: usize) -> usize {
        match self.standing[rule] {
            Standing::Only => 0,
            Standing::Untried(untried) => untried,
            Standing::Ranked { best, other } => {
                // The other order tried least, once the budget covers its mean work.
                let (w, n) = self.per_rule[rule][other];
                if self.budget[rule] >= ((w / n) as i64).saturating_mul(EXPLORE_SHARE) {
                    other
                } else {
                    best
                }
            }
        }
    }

    /// Records the work of one check by rule `rule` with order `order`.
    pub(crate) fn record(&mut self, rule: usize, order: usize, work: u64) {
        if let Standing::Ranked { best, .. } = self.standing[rule] {
            let budget = &mut self.budget[rule];
            *budget = if order == best {
                budget.saturating_add(work as i64)
            } else {
                budget.saturating_sub((work as i64).saturating_mul(EXPLORE_SHARE))
            };
        }
        let slot = &mut self.per_rule[rule][order];
        slot.0 += work;
        slot.1 += 1;
        if slot.1 >= HORIZON {
            slot.0 /= 2;
            slot.1 /= 2;
        }
        self.rank(rule);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An order that costs 10,000 times the plan's own is tried once, after the plan's
    /// [`EXPLORE`] checks, and then only as the budget allows: over the first thousand
    /// checks it costs no more than that one try and its budget's share.
    #[test]
    fn a_dear_order_is_tried_once_before_the_budget_decides() {
        let mut stats = OrderStats::for_orders(&[2]);
        let cost = [2u64, 20_000];
        let mut orders = Vec::new();
        let mut spent = [0u64; 2];
        for _ in 0..1_000 {
            let order = stats.choose(0);
            stats.record(0, order, cost[order]);
            orders.push(order);
            spent[order] += cost[order];
        }
        assert!(orders[..EXPLORE as usize].iter().all(|&o| o == 0));
        assert_eq!(orders[EXPLORE as usize], 1, "tried once after the first");
        assert_eq!(
            orders.iter().filter(|&&o| o == 1).count(),
            1,
            "and not again within a thousand checks"
        );
        assert!(spent[1] <= cost[1], "{spent:?}");
        // A cheaper other order takes over after its one try.
        let mut stats = OrderStats::for_orders(&[2]);
        let cost = [100u64, 1];
        let chosen: Vec<usize> = (0..40)
            .map(|_| {
                let order = stats.choose(0);
                stats.record(0, order, cost[order]);
                order
            })
            .collect();
        assert!(
            chosen[EXPLORE as usize..].iter().all(|&o| o == 1),
            "{chosen:?}"
        );
    }

    /// Trying the dearer order costs at most about 1/`EXPLORE_SHARE` of the work of the
    /// cheaper one, yet it is still tried now and then; and a change of costs changes the
    /// choice.
    #[test]
    fn other_orders_are_tried_on_a_budget() {
        let mut stats = OrderStats::for_orders(&[2]);
        let mut cost = [100u64, 1];
        let mut spent = [0u64; 2];
        let mut tries = [0u64; 2];
        for _ in 0..2 * EXPLORE {
            let order = stats.choose(0);
            stats.record(0, order, cost[order]);
        }
        for _ in 0..100_000 {
            let order = stats.choose(0);
            stats.record(0, order, cost[order]);
            spent[order] += cost[order];
            tries[order] += 1;
        }
        assert!(tries[0] > 5, "the dearer order is still tried: {tries:?}");
        assert!(
            spent[0] <= spent[1] / EXPLORE_SHARE as u64 + cost[0],
            "exploration within budget: {spent:?}"
        );
        // Order 0 becomes the cheaper: it is found by the tries and then used.
        cost = [1, 100];
        let mut last = [0u64; 2];
        for i in 0..200_000 {
            let order = stats.choose(0);
            stats.record(0, order, cost[order]);
            if i >= 190_000 {
                last[order] += 1;
            }
        }
        assert!(last[0] > last[1] * 10, "switched: {last:?}");
    }
}
