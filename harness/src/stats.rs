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

    /// `hi / lo` beyond [`BIMODAL_RATIO`] (a `lo` below 1 counts as 1: times are whole µs).
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
}
