//! Norms, embedding, positional and rotary encodings, distances, noise: layer twins, the
//! `layer_norm` / `embedding` tensor twins, and their configs' `try_init`.

use burn::nn::norm::{Normalization, NormalizationConfig};
use burn::nn::{
    BatchNormConfig, CosineSimilarityConfig, EmbeddingConfig, GaussianNoiseConfig, GroupNormConfig,
    Identity, InstanceNormConfig, LayerNormConfig, LocalResponseNormConfig, PairwiseDistanceConfig,
    PositionalEncodingConfig, RmsNormConfig, RotaryEncodingConfig,
};
use burn::tensor::module::{embedding, layer_norm};
use burn::tensor::{Device, Int, Tensor};
use burn_guard::prelude::*;
use burn_guard::tensor::module::{try_embedding, try_layer_norm};
use burn_guard::{GuardError, value_reads};
use proptest::prelude::*;

use crate::support::{
    cpu_devices, float_tensor as input, init_parity, parity_on_cpus, raw, refusals, refused,
    snapshot,
};

/// Token ids `[batch, seq]` counting from `first` (so some fall out of range).
fn ids(batch: usize, seq: usize, first: i64, device: &Device) -> Tensor<2, Int> {
    let n = batch * seq;
    if n == 0 {
        return Tensor::zeros([batch, seq], device);
    }
    let values: Vec<i64> = (0..n as i64).map(|i| first + i).collect();
    Tensor::<1, Int>::from_ints(values.as_slice(), device).reshape([batch, seq])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn layer_norm_parity(d in 1usize..5, batch in 0usize..3, fed in 0usize..6, bias: bool) {
        parity_on_cpus(
            &format!("layer_norm {d} (bias {bias}) on [{batch}, {fed}]"),
            |device| LayerNormConfig::new(d).with_bias(bias).init(device),
            |layer, device| snapshot(layer.forward(input([batch, fed], device))),
            |layer, device| layer.try_forward(input([batch, fed], device)).map(snapshot),
        );
    }

    #[test]
    fn layer_norm_function_parity(gamma in 0usize..5, beta in 0usize..5, batch in 0usize..3, fed in 0usize..5, with_beta: bool) {
        let args = |device: &Device| {
            (
                input([batch, fed], device),
                input::<1>([gamma], device),
                with_beta.then(|| Tensor::<1>::zeros([beta], device)),
            )
        };
        parity_on_cpus(
            &format!("layer_norm fn gamma {gamma} beta {beta:?} on [{batch}, {fed}]"),
            |device| args(device),
            |(x, g, b), _| snapshot(layer_norm(x.clone(), g.clone(), b.clone(), 1e-5)),
            |(x, g, b), _| try_layer_norm(x.clone(), g.clone(), b.clone(), 1e-5).map(snapshot),
        );
    }

    #[test]
    fn rms_norm_parity(d in 1usize..5, batch in 0usize..3, fed in 0usize..6) {
        parity_on_cpus(
            &format!("rms_norm {d} on [{batch}, {fed}]"),
            |device| RmsNormConfig::new(d).init(device),
            |layer, device| snapshot(layer.forward(input([batch, fed], device))),
            |layer, device| layer.try_forward(input([batch, fed], device)).map(snapshot),
        );
    }

    #[test]
    fn batch_norm_parity(c in 1usize..4, batch in 0usize..3, fed in 0usize..5, len in 0usize..3) {
        parity_on_cpus(
            &format!("batch_norm {c} on [{batch}, {fed}, {len}]"),
            |device| BatchNormConfig::new(c).init(device),
            |layer, device| snapshot(layer.forward(input([batch, fed, len], device))),
            |layer, device| layer.try_forward(input([batch, fed, len], device)).map(snapshot),
        );
    }

    #[test]
    fn group_norm_parity(groups in 1usize..4, per in 1usize..3, batch in 0usize..3, fed in 0usize..7, len in 0usize..3, affine: bool) {
        let c = groups * per;
        parity_on_cpus(
            &format!("group_norm {groups}x{per} (affine {affine}) on [{batch}, {fed}, {len}]"),
            |device| GroupNormConfig::new(groups, c).with_affine(affine).init(device),
            |layer, device| snapshot(layer.forward(input([batch, fed, len], device))),
            |layer, device| layer.try_forward(input([batch, fed, len], device)).map(snapshot),
        );
    }

    #[test]
    fn group_norm_rank2_parity(groups in 1usize..3, batch in 0usize..3, fed in 0usize..5) {
        parity_on_cpus(
            &format!("group_norm {groups}/{groups} on [{batch}, {fed}]"),
            |device| GroupNormConfig::new(groups, groups * 2).init(device),
            |layer, device| snapshot(layer.forward(input([batch, fed], device))),
            |layer, device| layer.try_forward(input([batch, fed], device)).map(snapshot),
        );
    }

    #[test]
    fn instance_norm_parity(c in 1usize..4, batch in 0usize..3, fed in 0usize..5, len in 0usize..3, affine: bool) {
        parity_on_cpus(
            &format!("instance_norm {c} (affine {affine}) on [{batch}, {fed}, {len}]"),
            |device| InstanceNormConfig::new(c).with_affine(affine).init(device),
            |layer, device| snapshot(layer.forward(input([batch, fed, len], device))),
            |layer, device| layer.try_forward(input([batch, fed, len], device)).map(snapshot),
        );
    }

    #[test]
    fn local_response_norm_parity(size in 1usize..4, batch in 0usize..3, c in 0usize..4, len in 0usize..3) {
        parity_on_cpus(
            &format!("local_response_norm {size} on [{batch}, {c}, {len}]"),
            |_| LocalResponseNormConfig::new(size).init(),
            |layer, device| snapshot(layer.forward(input([batch, c, len], device))),
            |layer, device| layer.try_forward(input([batch, c, len], device)).map(snapshot),
        );
    }

    #[test]
    fn normalization_parity(kind in 0usize..6, c in 1usize..4, batch in 1usize..3, fed in 1usize..5) {
        let config = |c: usize| -> NormalizationConfig {
            match kind {
                0 => NormalizationConfig::Identity,
                1 => BatchNormConfig::new(c).into(),
                2 => GroupNormConfig::new(1, c).into(),
                3 => InstanceNormConfig::new(c).into(),
                4 => LayerNormConfig::new(c).into(),
                _ => RmsNormConfig::new(c).into(),
            }
        };
        parity_on_cpus(
            &format!("normalization {kind} ({c}) on [{batch}, {fed}, {fed}]"),
            |device| config(c).init(device),
            |layer: &Normalization, device| snapshot(layer.forward(input([batch, fed, fed], device))),
            |layer, device| layer.try_forward(input([batch, fed, fed], device)).map(snapshot),
        );
    }

    #[test]
    fn embedding_parity(n in 1usize..6, d in 1usize..4, batch in 0usize..3, seq in 0usize..3, first in -2i64..6) {
        parity_on_cpus(
            &format!("embedding {n}x{d} on ids [{batch}, {seq}] from {first}"),
            |device| EmbeddingConfig::new(n, d).init(device),
            |layer, device| snapshot(layer.forward(ids(batch, seq, first, device))),
            |layer, device| layer.try_forward(ids(batch, seq, first, device)).map(snapshot),
        );
    }

    #[test]
    fn embedding_function_parity(n in 0usize..4, batch in 0usize..3, seq in 0usize..3, first in -1i64..4) {
        parity_on_cpus(
            &format!("embedding fn {n}x2 on ids [{batch}, {seq}] from {first}"),
            |device| input::<2>([n, 2], device),
            |w, device| snapshot(embedding(w.clone(), ids(batch, seq, first, device))),
            |w, device| try_embedding(w.clone(), ids(batch, seq, first, device)).map(snapshot),
        );
    }

    #[test]
    fn positional_encoding_parity(half in 1usize..4, max in 1usize..5, batch in 0usize..3, seq in 0usize..6, fed in 1usize..7) {
        parity_on_cpus(
            &format!("positional_encoding {} (max {max}) on [{batch}, {seq}, {fed}]", half * 2),
            |device| PositionalEncodingConfig::new(half * 2).with_max_sequence_size(max).init(device),
            |layer, device| snapshot(layer.forward(input([batch, seq, fed], device))),
            |layer, device| layer.try_forward(input([batch, seq, fed], device)).map(snapshot),
        );
    }

    #[test]
    fn rotary_encoding_parity(half in 1usize..4, max in 1usize..5, batch in 1usize..3, seq in 0usize..5, fed in 0usize..7, start in 0usize..4) {
        let d_model = half * 2;
        if fed == d_model && seq > 1 && start + 1 == max {
            // Beyond burn: one table row left, which burn broadcasts over the sequence.
            for (name, device) in cpu_devices() {
                let layer = RotaryEncodingConfig::new(max, d_model).init(&device);
                refused(name, "rotary past the table", layer.try_apply(input([batch, seq, fed], &device), start));
            }
            return Ok(());
        }
        parity_on_cpus(
            &format!("rotary_encoding {} (max {max}) on [{batch}, {seq}, {fed}] from {start}", half * 2),
            |device| RotaryEncodingConfig::new(max, half * 2).init(device),
            |layer, device| snapshot(layer.apply(input([batch, seq, fed], device), start)),
            |layer, device| layer.try_apply(input([batch, seq, fed], device), start).map(snapshot),
        );
    }

    #[test]
    fn rotary_encoding_rank4_parity(seq in 0usize..2, fed in 2usize..5) {
        parity_on_cpus(
            &format!("rotary_encoding 4 on [1, 2, {seq}, {fed}]"),
            |device| RotaryEncodingConfig::new(3, 4).init(device),
            |layer, device| snapshot(layer.forward(input([1, 2, seq, fed], device))),
            |layer, device| layer.try_forward(input([1, 2, seq, fed], device)).map(snapshot),
        );
    }

    #[test]
    fn pairwise_distance_parity(a in 0usize..3, b in 0usize..4, c in 0usize..3, d in 0usize..4, p in prop::sample::select(vec![1.0, 2.0, 3.0, f64::INFINITY])) {
        parity_on_cpus(
            &format!("pairwise_distance p={p} on [{a}, {b}] and [{c}, {d}]"),
            |_| PairwiseDistanceConfig::new().with_p(p).init(),
            |layer, device| snapshot(layer.forward(input([a, b], device), input([c, d], device))),
            |layer, device| layer.try_forward(input([a, b], device), input([c, d], device)).map(snapshot),
        );
    }

    #[test]
    fn cosine_similarity_parity(a in 0usize..3, b in 0usize..4, c in 0usize..3, d in 0usize..4, dim in -3isize..3) {
        parity_on_cpus(
            &format!("cosine_similarity dim {dim} on [{a}, {b}] and [{c}, {d}]"),
            |_| CosineSimilarityConfig::new().with_dim(dim).init(),
            |layer, device| snapshot(layer.forward(input([a, b], device), input([c, d], device))),
            |layer, device| layer.try_forward(input([a, b], device), input([c, d], device)).map(snapshot),
        );
    }

    #[test]
    fn noise_and_identity_parity(std in 0.0f64..2.0, a in 0usize..3, b in 0usize..3) {
        parity_on_cpus(
            &format!("gaussian_noise {std} on [{a}, {b}]"),
            |_| GaussianNoiseConfig::new(std).init(),
            |layer, device| snapshot(layer.forward(input([a, b], device))),
            |layer, device| layer.try_forward(input([a, b], device)).map(snapshot),
        );
        parity_on_cpus(
            &format!("identity on [{a}, {b}]"),
            |_| Identity::new(),
            |layer, device| snapshot(layer.forward(input([a, b], device))),
            |layer, device| layer.try_forward(input([a, b], device)).map(snapshot),
        );
    }
}

#[test]
fn norm_bad_inputs_are_refused_by_checks() {
    for (name, device) in cpu_devices() {
        let d = &device;
        let layer = LayerNormConfig::new(4).init(d);
        let rms = RmsNormConfig::new(4).init(d);
        let bn = BatchNormConfig::new(3).init(d);
        let gn = GroupNormConfig::new(2, 4).init(d);
        let mut no_gamma = GroupNormConfig::new(2, 4).init(d);
        no_gamma.gamma = None;
        let mut zero_groups = GroupNormConfig::new(2, 4).init(d);
        zero_groups.num_groups = 0;
        let gn1 = GroupNormConfig::new(1, 2).init(d);
        let inorm = InstanceNormConfig::new(3).init(d);
        let lrn = LocalResponseNormConfig::new(3).init();
        let pd_inf = PairwiseDistanceConfig::new().with_p(f64::INFINITY).init();
        let emb = EmbeddingConfig::new(5, 2).init(d);
        let pe = PositionalEncodingConfig::new(4)
            .with_max_sequence_size(3)
            .init(d);
        let rope = RotaryEncodingConfig::new(4, 4).init(d);
        let pd = PairwiseDistanceConfig::new().init();
        let cs = CosineSimilarityConfig::new().with_dim(2).init();
        let mut noise = GaussianNoiseConfig::new(0.1).init();
        noise.std = f64::NAN;
        let ones = |n: usize| Tensor::<1>::ones([n], d);
        refusals! { name;
            "layer_norm d_model", ShapeMismatch, "layer_norm" =>
                layer.try_forward(input([2, 3], d));
            "layer_norm fn beta", ShapeMismatch, "layer_norm" =>
                try_layer_norm(input([2, 3], d), ones(3), Some(ones(2)), 1e-5);
            "rms d_model", ShapeMismatch, "rms_norm" => rms.try_forward(input([2, 5], d));
            "batch_norm channels", ShapeMismatch, "batch_norm" =>
                bn.try_forward(input([2, 4, 2], d));
            "batch_norm rank 1", RankMismatch, "batch_norm" => bn.try_forward(input([3], d));
            "group_norm channels", ShapeMismatch, "group_norm" =>
                gn.try_forward(input([2, 3, 2], d));
            "group_norm empty", Empty, "group_norm" => gn.try_forward(input([0, 4, 2], d));
            "group_norm no gamma", InvalidArgument, "group_norm" =>
                no_gamma.try_forward(input([2, 4, 2], d));
            "group_norm 0 groups", OutOfRange, "group_norm" =>
                zero_groups.try_forward(input([2, 4, 2], d));
            "instance_norm channels", ShapeMismatch, "instance_norm" =>
                inorm.try_forward(input([2, 2, 2], d));
            "lrn rank", RankMismatch, "local_response_norm" => lrn.try_forward(input([2, 3], d));
            "lrn empty spatial", Empty, "local_response_norm" =>
                lrn.try_forward(input([1, 3, 0], d));
            "group_norm 2 elements", Empty, "group_norm" => gn1.try_forward(input([1, 2, 1], d));
            "pairwise inf empty", Empty, "pairwise_distance" =>
                pd_inf.try_forward(input([2, 0], d), input([2, 0], d));
            "layer_norm fn gamma", ShapeMismatch, "layer_norm" =>
                try_layer_norm(input([2, 3], d), ones(4), None, 1e-5);
            "embedding fn id 1000", IndexOutOfRange, "embedding" =>
                try_embedding(input([3, 2], d), ids(1, 1, 1000, d));
            "embedding id 5", IndexOutOfRange, "embedding" => emb.try_forward(ids(1, 2, 4, d));
            "embedding id -1", IndexOutOfRange, "embedding" => emb.try_forward(ids(1, 1, -1, d));
            "positional seq", OutOfRange, "positional_encoding" =>
                pe.try_forward(input([1, 4, 4], d));
            "positional d_model", ShapeMismatch, "positional_encoding" =>
                pe.try_forward(input([1, 2, 6], d));
            "rope past table", OutOfRange, "rotary_encoding" =>
                rope.try_apply(input([1, 2, 4], d), 3);
            "rope d_model", ShapeMismatch, "rotary_encoding" =>
                rope.try_forward(input([1, 2, 6], d));
            "rope empty seq", Empty, "rotary_encoding" => rope.try_forward(input([1, 0, 4], d));
            "rope rank 1", RankMismatch, "rotary_encoding" => rope.try_forward(input([4], d));
            "pairwise shapes", ShapeMismatch, "pairwise_distance" =>
                pd.try_forward(input([2, 3], d), input([2, 4], d));
            "cosine dim", DimOutOfRange, "cosine_similarity" =>
                cs.try_forward(input([2, 3], d), input([2, 3], d));
            "noise std", OutOfRange, "gaussian_noise" => noise.try_forward(input([2, 3], d));
        }
    }
}

#[test]
fn rotary_empty_batch_is_the_input_without_dispatch() {
    // Raw burn dies with SIGSEGV on Flex for [0, 1, 2] (measured in a child process); NdArray
    // returns the empty tensor, and so does the twin on both.
    for (_, device) in cpu_devices() {
        let rope = RotaryEncodingConfig::new(1, 2).init(&device);
        let out = rope.try_forward(input([0, 1, 2], &device)).unwrap();
        assert_eq!(snapshot(out), (vec![0, 1, 2], vec![]));
    }
}

#[test]
fn refusals_beyond_burn_on_the_training_path() {
    // burn runs these without a panic; the twins refuse them by a named rule.
    for (name, device) in cpu_devices() {
        let ad = device.autodiff();
        // Batch statistics of an empty batch (burn writes NaN into the running statistics).
        let bn = BatchNormConfig::new(3).init(&ad);
        assert!(raw(|| bn.forward(input([0, 3, 2], &ad)).dims()).is_some());
        let err = refused(
            name,
            "batch_norm train empty",
            bn.try_forward(input([0, 3, 2], &ad)),
        );
        assert_eq!(err.kind(), ErrorKind::Empty);
        assert_eq!(err.op(), "batch_norm_train");
        // A negative noise std, set through the public field.
        let mut noise = GaussianNoiseConfig::new(1.0).init();
        noise.std = -1.0;
        assert!(raw(|| noise.forward(input([2, 3], &ad)).dims()).is_some());
        let err = refused(name, "noise std -1", noise.try_forward(input([2, 3], &ad)));
        assert_eq!(err.kind(), ErrorKind::OutOfRange);
    }
}

#[test]
fn batch_norm_training_path_parity() {
    for (name, device) in cpu_devices() {
        let ad = device.autodiff();
        for shape in [[2, 3, 2], [1, 3, 1], [2, 3, 0]] {
            let bn = BatchNormConfig::new(3).init(&ad);
            let burn = raw(|| snapshot(bn.forward(input(shape, &ad))));
            let bn2 = BatchNormConfig::new(3).init(&ad);
            let ours = bn2.try_forward(input(shape, &ad)).map(snapshot);
            match (burn, ours) {
                (Some(b), Ok(o)) => assert_eq!(b, o, "{name}: {shape:?}"),
                (None, Err(err)) => {
                    refused(name, "batch_norm train", Err::<(), _>(err));
                }
                (_, Err(err)) if shape.contains(&0) => assert_eq!(err.kind(), ErrorKind::Empty),
                (b, o) => panic!("{name}: {shape:?}: burn {b:?} ours {o:?}"),
            }
        }
        let bn = BatchNormConfig::new(3).init(&ad);
        let err = refused(
            name,
            "batch_norm train channels",
            bn.try_forward(input([2, 4, 2], &ad)),
        );
        assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    }
}

#[test]
fn embedding_reads_ids_once_and_vouched_skips_the_read() {
    let device = Device::flex();
    let emb = EmbeddingConfig::new(5, 2).init(&device);
    let before = value_reads::count();
    emb.try_forward(ids(1, 2, 0, &device)).unwrap();
    assert_eq!(value_reads::count(), before + 1);
    let out = value_reads::vouched(|| emb.try_forward(ids(1, 1, 0, &device)));
    assert_eq!(value_reads::count(), before + 1);
    assert_eq!(out.unwrap().dims(), [1, 1, 2]);
}

#[test]
fn norm_inits_refuse_what_burn_panics_on() {
    let device = Device::flex();
    let d = &device;
    let bad = [0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY];
    for (features, eps, momentum) in [(0, 1e-5, 0.1), (3, 1e-5, 0.1)]
        .into_iter()
        .chain(bad.iter().map(|&e| (3, e, 0.1)))
        .chain(bad.iter().chain(&[1.0, 1.5, -0.1]).map(|&m| (3, 1e-5, m)))
    {
        let config = BatchNormConfig::new(features)
            .with_epsilon(eps)
            .with_momentum(momentum);
        let case = format!("batch_norm {features} eps {eps} momentum {momentum}");
        init_parity(&case, raw(|| config.init(d)), config.try_init(d));
    }
    for (groups, channels) in [(0, 4), (3, 4), (2, 4), (4, 4), (1, 0), (2, 0)] {
        let config = GroupNormConfig::new(groups, channels);
        let case = format!("group_norm {groups}/{channels}");
        init_parity(&case, raw(|| config.init(d)), config.try_init(d));
    }
    for eps in bad.iter().chain(&[1e-5]) {
        let config = RmsNormConfig::new(4).with_epsilon(*eps);
        init_parity(
            &format!("rms eps {eps}"),
            raw(|| config.init(d)),
            config.try_init(d),
        );
    }
    for size in [0, 1, 5] {
        let config = LocalResponseNormConfig::new(size);
        init_parity(
            &format!("lrn size {size}"),
            raw(|| config.init()),
            config.try_init(),
        );
    }
    for std in bad.iter().chain(&[0.5]) {
        let config = GaussianNoiseConfig::new(*std);
        init_parity(
            &format!("noise std {std}"),
            raw(|| config.init()),
            config.try_init(),
        );
    }
    for (d_model, max_seq, timescale) in [(4, 5, 10), (3, 5, 10), (4, 11, 10), (0, 1, 1), (4, 0, 0)]
    {
        let config = PositionalEncodingConfig::new(d_model)
            .with_max_sequence_size(max_seq)
            .with_max_timescale(timescale);
        let case = format!("positional {d_model} {max_seq} {timescale}");
        init_parity(&case, raw(|| config.init(d)), config.try_init(d));
    }
    for (d_model, theta) in [
        (4, 10000.0),
        (3, 10000.0),
        (4, 0.0),
        (4, -1.0),
        (4, f32::NAN),
        (2, 1.0),
    ] {
        let config = RotaryEncodingConfig::new(4, d_model).with_theta(theta);
        let case = format!("rotary {d_model} theta {theta}");
        init_parity(&case, raw(|| config.init(d)), config.try_init(d));
    }
    let config = RotaryEncodingConfig::new(0, 4);
    init_parity("rotary max 0", raw(|| config.init(d)), config.try_init(d));
    let wrapped: NormalizationConfig = GroupNormConfig::new(3, 4).into();
    init_parity(
        "normalization group 3/4",
        raw(|| wrapped.init(d)),
        wrapped.try_init(d),
    );
}

#[test]
fn parameters_on_another_device_are_refused() {
    #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
    let other = Device::ndarray();
    let flex = Device::flex();
    let x = || input([2, 4, 3], &other);
    let checks: Vec<(&str, Result<Tensor<3>, GuardError>, Option<()>)> = vec![
        (
            "layer_norm",
            LayerNormConfig::new(3).init(&flex).try_forward(x()),
            raw(|| drop(snapshot(LayerNormConfig::new(3).init(&flex).forward(x())))),
        ),
        (
            "rms_norm",
            RmsNormConfig::new(3).init(&flex).try_forward(x()),
            raw(|| drop(snapshot(RmsNormConfig::new(3).init(&flex).forward(x())))),
        ),
        (
            "batch_norm",
            BatchNormConfig::new(4).init(&flex).try_forward(x()),
            raw(|| drop(snapshot(BatchNormConfig::new(4).init(&flex).forward(x())))),
        ),
        (
            "group_norm",
            GroupNormConfig::new(2, 4).init(&flex).try_forward(x()),
            raw(|| {
                drop(snapshot(
                    GroupNormConfig::new(2, 4).init(&flex).forward(x()),
                ))
            }),
        ),
    ];
    for (op, ours, burn) in checks {
        let err = refused("flex+ndarray", op, ours);
        assert_eq!(err.kind(), ErrorKind::DeviceMismatch, "{op}");
        assert!(burn.is_none(), "{op}: raw burn runs across devices");
    }
    let emb = EmbeddingConfig::new(5, 2).init(&flex);
    let err = refused(
        "flex+ndarray",
        "embedding",
        emb.try_forward(ids(1, 2, 0, &other)),
    );
    assert_eq!(err.kind(), ErrorKind::DeviceMismatch);
}

#[test]
fn vouched_ids_out_of_range_reach_the_backstop() {
    for (name, device) in cpu_devices() {
        let emb = EmbeddingConfig::new(3, 2).init(&device);
        let out = value_reads::vouched(|| emb.try_forward(ids(1, 1, 3, &device)));
        let eager =
            matches!(&out, Err(err) if matches!(err.root(), GuardError::BackendPanic { .. }));
        // The gather panics eagerly on both CPU backends: the backstop answers.
        assert!(eager, "{name}: {out:?}");
    }
}
