//! The one median every report, table and chart of the harness uses, and the spread shown
//! beside it.

/// The median of ascending values, the mean of the middle two for an even count; `None` for
/// none. Why not the upper middle one: a study's cases have 10 batches, often in two groups of
/// times (a deletion that over-deletes, one that does not); with 6 fast and 4 slow, one batch
/// turned slow by the machine moved the upper middle value from the fast group to the slow
/// one, a fourfold change of the ratio from one run to the next (GO CC `magic_path_source`).
pub fn median_of_sorted(v: &[f64]) -> Option<f64> {
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// The median of values in any order (see [`median_of_sorted`]); `None` for none.
pub fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    median_of_sorted(&v)
}

/// Batches from which a spread is given as p10 and p90; below, as the minimum and maximum
/// (a tenth of fewer than 20 batches is one batch or none).
pub const PERCENTILES_FROM: usize = 20;

/// A spread `hi / lo` above this marks a case as bimodal: its median may match no batch, and
/// the reader should look at the per-batch plot.
pub const BIMODAL_RATIO: f64 = 10.0;

/// The median of a figure over a case's batches with its spread: p10 and p90 from
/// [`PERCENTILES_FROM`] batches on, else the minimum and the maximum.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    /// The median ([`median_of_sorted`]).
    pub median: f64,
    /// p10, or the minimum.
    pub lo: f64,
    /// p90, or the maximum.
    pub hi: f64,
    /// Values summarised.
    pub n: usize,
}

impl Spread {
    /// The spread of values in any order; `None` for none. Percentiles by nearest rank: p10
    /// is the value at rank ⌈0.1 n⌉, p90 at rank ⌈0.9 n⌉ (ranks from 1).
    pub fn of(mut v: Vec<f64>) -> Option<Spread> {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = median_of_sorted(&v)?;
        let rank = |q: f64| v[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
        let (lo, hi) = if n >= PERCENTILES_FROM {
            (rank(0.1), rank(0.9))
        } else {
            (v[0], v[n - 1])
        };
        Some(Spread { median, lo, hi, n })
    }

    /// Whether `lo` and `hi` are p10 and p90 (else the minimum and the maximum).
    pub fn percentiles(&self) -> bool {
        self.n >= PERCENTILES_FROM
    }

    /// `hi / lo` beyond [`BIMODAL_RATIO`] (a `lo` below 1 counts as 1).
    pub fn bimodal(&self) -> bool {
        self.hi / self.lo.max(1.0) > BIMODAL_RATIO
    }

    /// `median [lo–hi]`, each with `decimals` decimals, and ` ‼` when bimodal.
    pub fn render(&self, decimals: usize) -> String {
        format!(
            "{:.*} [{:.*}–{:.*}]{}",
            decimals,
            self.median,
            decimals,
            self.lo,
            decimals,
            self.hi,
            if self.bimodal() { " ‼" } else { "" }
        )
    }
}

/// The A/A median's bounds: a case whose two instances of one engine read further apart
/// than this, on the median of their per-batch ratios, is one on which the instrument cannot
/// tell engines apart by less, and every ratio of the case is flagged unreliable.
pub const AA_RELIABLE: (f64, f64) = (0.9, 1.1);

/// The A/A check of one case: per batch, the time of a second, independent instance of an
/// engine divided by the first's, on the same batch in the same run. Identical code on
/// identical data: the median must read 1, and the spread is the noise of a single
/// per-batch ratio of this case.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AaCheck {
    /// Median of the per-batch ratios ([`median_of_sorted`]).
    pub median: f64,
    /// p10 by nearest rank (rank ⌈0.1 n⌉, from 1), whatever the count: of 11 batches, the
    /// second smallest.
    pub p10: f64,
    /// p90 by nearest rank (rank ⌈0.9 n⌉): of 11 batches, the second largest.
    pub p90: f64,
    /// Batches with both times.
    pub n: usize,
}

impl AaCheck {
    /// The check from each instance's time per batch (any unit; batches missing from either
    /// are skipped; a time of 0 counts as 1); `None` without a common batch.
    pub fn of(
        second: &std::collections::BTreeMap<usize, u64>,
        first: &std::collections::BTreeMap<usize, u64>,
    ) -> Option<AaCheck> {
        let mut v: Vec<f64> = second
            .iter()
            .filter_map(|(b, &t2)| Some(t2.max(1) as f64 / (*first.get(b)?).max(1) as f64))
            .collect();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = median_of_sorted(&v)?;
        let rank = |q: f64| v[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
        Some(AaCheck {
            median,
            p10: rank(0.1),
            p90: rank(0.9),
            n,
        })
    }

    /// Whether the median lies within [`AA_RELIABLE`].
    pub fn reliable(&self) -> bool {
        self.median >= AA_RELIABLE.0 && self.median <= AA_RELIABLE.1
    }

    /// The noise of one per-batch log ratio, as a standard deviation estimated robustly from
    /// p10 and p90 (a normal distribution's are 2.563 standard deviations apart).
    pub fn log_sd(&self) -> f64 {
        (self.p90.max(f64::MIN_POSITIVE).ln() - self.p10.max(f64::MIN_POSITIVE).ln()).abs() / 2.563
    }

    /// `median [p10–p90]` with two decimals, and ` ⚠ unreliable` outside [`AA_RELIABLE`].
    pub fn render(&self) -> String {
        format!(
            "{:.2} [{:.2}–{:.2}]{}",
            self.median,
            self.p10,
            self.p90,
            if self.reliable() {
                ""
            } else {
                " ⚠ unreliable"
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median_of_sorted(&[1.0, 2.0, 10.0]), Some(2.0));
        assert_eq!(median_of_sorted(&[1.0, 2.0, 4.0, 10.0]), Some(3.0));
        assert_eq!(median_of_sorted(&[5.0]), Some(5.0));
        assert_eq!(median(vec![10.0, 1.0, 4.0, 2.0]), Some(3.0));
        assert_eq!(median(Vec::new()), None);
    }

    /// Fewer than 20 values: the minimum and the maximum; 20 or more: p10 and p90 by nearest
    /// rank. The R-MAT case of issue 23 (5 batches near 62 µs, 5 near 5,681 µs) is bimodal,
    /// and its median (the mean of the middle two) matches no batch, which is why the spread
    /// is shown.
    #[test]
    fn spreads_and_bimodal_cases() {
        let s = Spread::of(vec![3.0, 1.0, 2.0]).expect("values");
        assert_eq!(
            (s.median, s.lo, s.hi, s.percentiles()),
            (2.0, 1.0, 3.0, false)
        );
        let s = Spread::of((1..=21).map(f64::from).collect()).expect("values");
        assert_eq!(
            (s.median, s.lo, s.hi, s.percentiles()),
            (11.0, 3.0, 19.0, true)
        );
        let s = Spread::of((1..=20).map(f64::from).collect()).expect("values");
        assert_eq!((s.lo, s.hi), (2.0, 18.0));
        let bimodal: Vec<f64> = [
            60.0, 61.0, 62.0, 63.0, 64.0, 5600.0, 5650.0, 5681.0, 5700.0, 5750.0,
        ]
        .to_vec();
        let s = Spread::of(bimodal).expect("values");
        assert!(s.bimodal());
        assert_eq!(s.render(0), "2832 [60–5750] ‼");
        assert!(!Spread::of(vec![100.0, 900.0]).expect("values").bimodal());
        assert!(Spread::of(vec![0.0, 11.0]).expect("values").bimodal());
        assert_eq!(Spread::of(Vec::new()), None);
    }

    #[test]
    fn an_aa_check_reads_the_ratio_of_the_second_instance_to_the_first() {
        use std::collections::BTreeMap;
        let first: BTreeMap<usize, u64> = (1..=11).map(|b| (b, 1_000)).collect();
        // Ratios 0.5, 0.9, 1.0 (×7), 1.1, 2.0; batch 12 has no partner.
        let mut second: BTreeMap<usize, u64> = (1..=11).map(|b| (b, 1_000)).collect();
        second.insert(1, 500);
        second.insert(2, 900);
        second.insert(3, 1_100);
        second.insert(4, 2_000);
        second.insert(12, 7);
        let c = AaCheck::of(&second, &first).expect("common batches");
        assert_eq!((c.n, c.median, c.p10, c.p90), (11, 1.0, 0.9, 1.1));
        assert!(c.reliable());
        assert_eq!(c.render(), "1.00 [0.90–1.10]");
        assert!((c.log_sd() - (1.1f64.ln() - 0.9f64.ln()) / 2.563).abs() < 1e-12);
        let slow: BTreeMap<usize, u64> = (1..=11).map(|b| (b, 1_200)).collect();
        let c = AaCheck::of(&slow, &first).expect("common batches");
        assert!(!c.reliable());
        assert!(c.render().ends_with("⚠ unreliable"), "{}", c.render());
        assert_eq!(AaCheck::of(&BTreeMap::new(), &first), None);
    }
}
