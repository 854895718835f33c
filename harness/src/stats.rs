//! The one median every report, table and chart of the harness uses.

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
}
