//! `examples/quantized_models.rs --quick --json` (Flex, one epoch of training per model): the
//! document parses, both models have their f32 row and one row per scheme, and what does not
//! depend on training holds — the in-place twin's logits equal `WeightQuantizer`'s, Q8 per
//! tensor quantizes every parameter within 0.26× of f32, and blocks of 32 keep in float
//! exactly the parameters they cannot divide, each with its reason. The accuracy targets need
//! the full training and the wgpu run: `cargo run --all-features --example quantized_models`.
//! Runs the example binary `cargo test` builds beside the test binaries.

use serde_json::Value;

#[path = "common/example.rs"]
mod example;

fn kept_paths(row: &Value) -> Vec<&str> {
    row["kept_in_float"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            assert!(
                k["reason"]
                    .as_str()
                    .unwrap()
                    .contains("block size must divide"),
                "{k}"
            );
            k["path"].as_str().unwrap()
        })
        .collect()
}

#[test]
fn the_quick_run_parses_and_keeps_in_float_what_blocks_cannot_divide() {
    let args = ["--quick", "--json"];
    let stdout = example::run_example("quantized_models", &args, "`cargo test --all-features`");
    let report: Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(report["in_place_matches"], true, "{report:#}");
    let models = report["models"].as_array().unwrap();
    assert_eq!(models.len(), 2);
    let expected_kept: [&[&str]; 2] = [
        &["head.weight", "head.bias"],
        &[
            "conv1.weight",
            "conv1.bias",
            "conv2.weight",
            "conv2.bias",
            "head.weight",
            "head.bias",
        ],
    ];
    for (model, kept) in models.iter().zip(expected_kept) {
        let rows = model["rows"].as_array().unwrap();
        let schemes: Vec<&str> = rows.iter().map(|r| r["scheme"].as_str().unwrap()).collect();
        assert_eq!(schemes, ["f32", "q8-tensor", "q8-block32", "q4-block32"]);
        for row in rows {
            let accuracy = row["accuracy"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&accuracy), "{row}");
        }
        let q8 = &rows[1];
        assert!(q8["strict_refusal"].is_null(), "{q8}");
        assert!(kept_paths(q8).is_empty());
        assert!(q8["quantized_ratio"].as_f64().unwrap() <= 0.26, "{q8}");
        for row in &rows[2..] {
            assert!(row["strict_refusal"].as_str().is_some(), "{row}");
            assert_eq!(kept_paths(row), kept, "{row}");
        }
    }
    let targets = report["targets"].as_array().unwrap();
    // Per model: three accuracy targets, and bytes for Q8 per tensor and Q4 block 32.
    assert_eq!(targets.len(), 10, "{targets:#?}");
}
