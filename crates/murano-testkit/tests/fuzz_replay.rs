//! Replays every fuzz target's seed corpus and regression inputs
//! (`fuzz/seeds/<target>/`, `fuzz/regressions/<target>/`) through the same
//! check the fuzzer runs.

use std::path::Path;

#[test]
fn replay_seeds_and_regressions() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    for (target, check) in murano_testkit::fuzz::TARGETS {
        let mut replayed = 0;
        for dir in ["seeds", "regressions"] {
            for file in murano_testkit::files_ending(&fuzz.join(dir).join(target), "") {
                let data = std::fs::read(&file).unwrap();
                check(&data);
                replayed += 1;
            }
        }
        println!("fuzz target {target}: replayed {replayed} inputs");
        assert!(replayed > 0, "no seeds for {target}");
    }
}
