//! The error type's own tests: kinds, one-line messages, contexts, sources.

use super::*;

type TestResult = std::result::Result<(), Box<dyn std::error::Error>>;

/// A text with a newline, for every string field.
const NL: &str = "first\nsecond";

/// One value of every variant, every string field holding a newline, with its kind.
fn every_variant() -> Vec<(GuardError, ErrorKind)> {
    vec![
        (
            GuardError::ShapeMismatch {
                op: NL,
                rule: NL,
                shapes: vec![vec![2, 3], vec![4, 5]],
            },
            ErrorKind::ShapeMismatch,
        ),
        (
            GuardError::RankMismatch {
                op: NL,
                rule: NL,
                expected: 2,
                got: 1,
                shape: vec![3],
            },
            ErrorKind::RankMismatch,
        ),
        (
            GuardError::DimOutOfRange {
                op: NL,
                dim: -3,
                rank: 2,
            },
            ErrorKind::DimOutOfRange,
        ),
        (
            GuardError::IndexOutOfRange {
                op: NL,
                index: 4,
                size: 4,
                dim: 0,
            },
            ErrorKind::IndexOutOfRange,
        ),
        (
            GuardError::Empty {
                op: NL,
                rule: NL,
                shape: vec![2, 0],
                dim: Some(1),
            },
            ErrorKind::Empty,
        ),
        (
            GuardError::DeviceMismatch {
                op: NL,
                devices: vec![NL.into(), NL.into()],
            },
            ErrorKind::DeviceMismatch,
        ),
        (
            GuardError::OutOfRange {
                op: NL,
                rule: NL,
                name: NL,
                value: 4usize.into(),
                limit: Limit::AtMost(3usize.into()),
            },
            ErrorKind::OutOfRange,
        ),
        (
            GuardError::OutOfOrder {
                op: NL,
                rule: NL,
                lower_name: NL,
                lower: 2.0.into(),
                upper_name: NL,
                upper: 1.0.into(),
            },
            ErrorKind::OutOfOrder,
        ),
        (
            GuardError::NotRepresentable {
                op: NL,
                rule: NL,
                value: f64::NAN.into(),
                dtype: DType::I64,
            },
            ErrorKind::NotRepresentable,
        ),
        (
            GuardError::NonFinite {
                op: NL,
                rule: NL,
                count: 2,
                total: 8,
                split: None,
                dtype: None,
                shape: None,
            },
            ErrorKind::NonFinite,
        ),
        (
            GuardError::NonFinite {
                op: NL,
                rule: NL,
                count: 3,
                total: 8,
                split: Some(NonFiniteSplit {
                    nan: 2,
                    pos_inf: 1,
                    neg_inf: 0,
                }),
                dtype: Some(FloatDType::F32),
                shape: Some(vec![2, 4]),
            },
            ErrorKind::NonFinite,
        ),
        (
            GuardError::DTypeMismatch {
                op: NL,
                rule: NL,
                lhs: DType::F32,
                rhs: DType::F64,
            },
            ErrorKind::DTypeMismatch,
        ),
        (
            GuardError::InvalidDType {
                op: NL,
                rule: NL,
                dtype: DType::Bool(burn::tensor::BoolStore::Native),
            },
            ErrorKind::InvalidDType,
        ),
        (
            GuardError::InvalidArgument {
                op: NL,
                rule: NL,
                got: NL.into(),
            },
            ErrorKind::InvalidArgument,
        ),
        (
            GuardError::InvalidQuantScheme {
                op: NL,
                scheme: QuantScheme::default(),
                shape: vec![8, 24],
                reason: NL.into(),
            },
            ErrorKind::InvalidQuantScheme,
        ),
        (
            GuardError::Unsupported(
                Unsupported::new(NL, NL, NL, Gap::new(crate::gap::Effect::Panics, NL))
                    .with_fallbacks(vec![(
                        NL.into(),
                        Gap::new(crate::gap::Effect::Unmeasured, NL),
                    )]),
            ),
            ErrorKind::Unsupported,
        ),
        (
            GuardError::NotDifferentiable {
                op: NL,
                backend: NL.into(),
                order: 2,
            },
            ErrorKind::NotDifferentiable,
        ),
        (
            GuardError::DeviceUnavailable {
                op: NL,
                device: NL.into(),
                reason: NL.into(),
            },
            ErrorKind::DeviceUnavailable,
        ),
        (
            GuardError::TooLarge {
                op: NL,
                bytes: Some(134_221_824),
                limit: Some(134_217_728),
                device: NL.into(),
            },
            ErrorKind::TooLarge,
        ),
        (
            GuardError::TooLarge {
                op: NL,
                bytes: None,
                limit: None,
                device: NL.into(),
            },
            ErrorKind::TooLarge,
        ),
        (
            GuardError::OutOfMemory {
                op: NL,
                bytes: 8 << 30,
                in_use: 1 << 30,
                budget: 4 << 30,
                device: NL.into(),
            },
            ErrorKind::OutOfMemory,
        ),
        (
            GuardError::BackendPanic {
                op: NL,
                message: NL.into(),
                location: Some(NL.into()),
            },
            ErrorKind::BackendPanic,
        ),
        (
            GuardError::Timeout {
                op: NL,
                after: std::time::Duration::from_secs(5),
            },
            ErrorKind::Timeout,
        ),
        (
            GuardError::Execution {
                op: NL,
                cause: ExecutionError::WithContext { reason: NL.into() },
            },
            ErrorKind::Execution,
        ),
        (
            GuardError::from_data(
                NL,
                DataError::DTypeMismatch {
                    expected: DType::F32,
                    actual: DType::I32,
                },
            ),
            ErrorKind::Data,
        ),
        (
            GuardError::Unreadable { op: NL, what: NL },
            ErrorKind::Unreadable,
        ),
        (
            GuardError::Missing {
                op: NL,
                params: vec![NL.into()],
            },
            ErrorKind::Missing,
        ),
        (
            GuardError::Unused {
                op: NL,
                keys: vec![NL.into()],
            },
            ErrorKind::Unused,
        ),
        (
            GuardError::LoadMismatch {
                op: NL,
                missing: vec![NL.into()],
                unused: vec![NL.into()],
                refused: vec![GuardError::Unreadable { op: NL, what: NL }.context(NL)],
                renamed: vec![(NL.into(), NL.into())],
            },
            ErrorKind::LoadMismatch,
        ),
        (
            GuardError::KeyCollision {
                op: NL,
                name: NL.into(),
                sources: vec![NL.into(), NL.into()],
            },
            ErrorKind::KeyCollision,
        ),
        (
            GuardError::LayoutUnstated {
                op: NL,
                shape: vec![4, 4],
                producer: Some(NL.into()),
            },
            ErrorKind::LayoutUnstated,
        ),
        (
            GuardError::Store {
                op: NL,
                cause: Arc::new(std::io::Error::other(NL)),
            },
            ErrorKind::Store,
        ),
        (
            GuardError::Diverged {
                op: NL,
                device: NL.into(),
                reference: NL.into(),
                mismatched: 1,
                elements: 4,
                max_abs: 0.5,
                max_rel: 0.25,
            },
            ErrorKind::Diverged,
        ),
        (
            GuardError::NoGradient {
                op: NL,
                rule: NL,
                params: vec![NL.into()],
            },
            ErrorKind::NoGradient,
        ),
        (
            GuardError::NonFiniteGradients {
                op: NL,
                params: vec![
                    NonFiniteParam::new(NL, 1, 4),
                    NonFiniteParam {
                        split: Some(NonFiniteSplit {
                            nan: 0,
                            pos_inf: 1,
                            neg_inf: 1,
                        }),
                        dtype: Some(FloatDType::F16),
                        shape: Some(vec![4]),
                        ..NonFiniteParam::new(NL, 2, 4)
                    },
                ],
            },
            ErrorKind::NonFiniteGradients,
        ),
        (
            GuardError::Cell {
                op: NL,
                cell: NL.into(),
                fault: crate::cell::CellFault::Signal {
                    signal: 6,
                    stderr: NL.into(),
                },
            },
            ErrorKind::Cell,
        ),
    ]
}

#[test]
fn every_variant_is_one_line_starts_with_its_op_and_has_its_kind() -> TestResult {
    let folded_nl = one_line(NL);
    for (err, kind) in every_variant() {
        assert_eq!(err.kind(), kind, "{err}");
        let text = err.to_string();
        assert!(!text.contains('\n'), "{text}");
        assert!(text.starts_with(&one_line(err.op())), "{text}");
        assert!(!text.ends_with('.'), "{text}");
        // The same through a context layer whose segment holds a newline too.
        let wrapped = err.clone().context(NL);
        assert_eq!(wrapped.kind(), kind);
        assert_eq!(wrapped.op(), err.op());
        let outer = wrapped.to_string();
        assert!(!outer.contains('\n'), "{outer}");
        assert_eq!(outer, format!("{folded_nl}: {text}"));
    }
    Ok(())
}

/// One exact Display per variant (the typed ones and those whose format changed).
#[test]
fn display_pins_the_format() {
    let rows: Vec<(GuardError, &str)> = vec![
        (
            GuardError::OutOfRange {
                op: "topk",
                rule: "k must not exceed the dimension size",
                name: "k",
                value: 4usize.into(),
                limit: Limit::AtMost(3usize.into()),
            },
            "topk: k must not exceed the dimension size; got k=4, expected at most 3",
        ),
        (
            GuardError::OutOfOrder {
                op: "clamp",
                rule: "min must not exceed max",
                lower_name: "min",
                lower: 2.0.into(),
                upper_name: "max",
                upper: 1.0.into(),
            },
            "clamp: min must not exceed max; got min=2.0, max=1.0",
        ),
        (
            GuardError::NotRepresentable {
                op: "full",
                rule: "the scalar is not representable in the tensor's dtype",
                value: f64::NAN.into(),
                dtype: DType::I64,
            },
            "full: the scalar is not representable in the tensor's dtype; got value=NaN, dtype=I64",
        ),
        (
            GuardError::NonFinite {
                op: "quantize_dynamic",
                rule: "values must be finite",
                count: 2,
                total: 8,
                split: None,
                dtype: None,
                shape: None,
            },
            "quantize_dynamic: values must be finite; got 2 non-finite of 8 values",
        ),
        (
            GuardError::NonFinite {
                op: "features",
                rule: "values must be finite",
                count: 3,
                total: 8,
                split: Some(NonFiniteSplit {
                    nan: 2,
                    pos_inf: 1,
                    neg_inf: 0,
                }),
                dtype: Some(FloatDType::F32),
                shape: Some(vec![2, 4]),
            },
            "features: values must be finite; got 3 non-finite of 8 values (2 NaN, 1 +inf, 0 -inf) in F32 [2, 4]",
        ),
        (
            GuardError::NonFinite {
                op: "random",
                rule: "uniform bounds must be finite",
                count: 2,
                total: 2,
                split: Some(NonFiniteSplit {
                    nan: 0,
                    pos_inf: 1,
                    neg_inf: 1,
                }),
                dtype: Some(FloatDType::F32),
                shape: None,
            },
            "random: uniform bounds must be finite; got 2 non-finite of 2 values (0 NaN, 1 +inf, 1 -inf) in F32",
        ),
        (
            GuardError::NonFiniteGradients {
                op: "step",
                params: vec![
                    NonFiniteParam {
                        split: Some(NonFiniteSplit {
                            nan: 2,
                            pos_inf: 1,
                            neg_inf: 0,
                        }),
                        dtype: Some(FloatDType::F32),
                        shape: Some(vec![3, 4]),
                        ..NonFiniteParam::new("fc.weight", 3, 12)
                    },
                    NonFiniteParam::new("fc.bias", 1, 4),
                ],
            },
            "step: gradients must be finite; got NaN or ±inf in 2 parameters: fc.weight 3 of 12 (2 NaN, 1 +inf, 0 -inf) in F32 [3, 4], fc.bias 1 of 4",
        ),
        (
            GuardError::Empty {
                op: "argmax",
                rule: "the reduced dimension must not be empty",
                shape: vec![2, 0],
                dim: Some(1),
            },
            "argmax: the reduced dimension must not be empty; got shape [2, 0] (dim 1)",
        ),
        (
            GuardError::DTypeMismatch {
                op: "add",
                rule: "both operands must have the same dtype",
                lhs: DType::F64,
                rhs: DType::F32,
            },
            "add: both operands must have the same dtype; got F64 and F32",
        ),
        (
            GuardError::InvalidDType {
                op: "gather_nd",
                rule: "bool tensors are not supported",
                dtype: DType::Bool(burn::tensor::BoolStore::Native),
            },
            "gather_nd: bool tensors are not supported; got dtype=Bool(Native)",
        ),
        (
            GuardError::Timeout {
                op: "sync",
                after: std::time::Duration::from_millis(1500),
            },
            "sync: did not finish within the deadline; got no result after 1.5s",
        ),
        (
            GuardError::ShapeMismatch {
                op: "matmul",
                rule: "lhs columns must equal rhs rows",
                shapes: vec![vec![2, 3], vec![4, 5]],
            },
            "matmul: lhs columns must equal rhs rows; got [2, 3] and [4, 5]",
        ),
        (
            GuardError::Execution {
                op: "into_data",
                cause: ExecutionError::WithContext {
                    reason: "device lost".into(),
                },
            },
            "into_data: backend execution failed; got An error happened during execution | Caused by: | device lost",
        ),
        (
            GuardError::TooLarge {
                op: "zeros",
                bytes: Some(134_221_824),
                limit: Some(134_217_728),
                device: "Cube(Wgpu(DefaultDevice))".into(),
            },
            "zeros: the tensor exceeds the largest buffer the device can allocate; got 134221824 bytes, limit 134217728 bytes (device Cube(Wgpu(DefaultDevice)))",
        ),
        (
            GuardError::TooLarge {
                op: "zeros",
                bytes: None,
                limit: None,
                device: "remote ws://127.0.0.1:3000".into(),
            },
            "zeros: the tensor exceeds the largest buffer the device can allocate; got a size that overflows, no stated limit (device remote ws://127.0.0.1:3000)",
        ),
        (
            GuardError::OutOfMemory {
                op: "ones",
                bytes: 8_589_934_592,
                in_use: 1_073_741_824,
                budget: 4_294_967_296,
                device: "Flex".into(),
            },
            "ones: the allocation does not fit in the device's free memory; got 8589934592 bytes with 1073741824 of 4294967296 bytes in use (device Flex)",
        ),
        (
            GuardError::DeviceUnavailable {
                op: "connect_remote",
                device: "remote ws://127.0.0.1:4000".into(),
                reason: "connect: connection refused".into(),
            },
            "connect_remote: device unavailable; got remote ws://127.0.0.1:4000: connect: connection refused",
        ),
        (
            GuardError::BackendPanic {
                op: "matmul",
                message: "line one\nline two".into(),
                location: Some("src/x.rs:1:2".into()),
            },
            "matmul: backend panicked; got \"line one | line two\" at src/x.rs:1:2",
        ),
    ];
    for (err, expected) in rows {
        assert_eq!(err.to_string(), expected);
    }
}

#[test]
fn limits_read_as_words() {
    let rows = [
        (Limit::AtLeast(1usize.into()), "at least 1"),
        (Limit::AtMost(3usize.into()), "at most 3"),
        (Limit::Above(0.0.into()), "greater than 0.0"),
        (Limit::Below(4usize.into()), "less than 4"),
        (Limit::Exactly(1usize.into()), "exactly 1"),
        (Limit::Between(0i64.into(), 63i64.into()), "in [0, 63]"),
        (Limit::NonZero, "non-zero"),
    ];
    for (limit, text) in rows {
        assert_eq!(limit.to_string(), text);
    }
}

#[test]
fn contexts_stack_as_a_dotted_path() -> TestResult {
    let inner = GuardError::ShapeMismatch {
        op: "linear",
        rule: "the last input dimension must equal the weight rows",
        shapes: vec![vec![2, 3], vec![4, 5]],
    };
    let result: Result<()> = Err(inner);
    let err = result
        .context("attention")
        .with_context(|| format!("layers.{}", 2))
        .context("encoder")
        .err()
        .ok_or("expected an error")?;
    assert_eq!(
        err.to_string(),
        "encoder.layers.2.attention: linear: the last input dimension must equal the weight rows; got [2, 3] and [4, 5]"
    );
    assert_eq!(err.path().as_deref(), Some("encoder.layers.2.attention"));
    assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    assert_eq!(err.op(), "linear");
    assert!(matches!(
        err.root(),
        GuardError::ShapeMismatch { shapes, .. } if shapes == &[vec![2, 3], vec![4, 5]]
    ));
    assert!(std::error::Error::source(&err).is_none());
    // `with_context` builds its segment only for an error.
    let built = std::cell::Cell::new(0);
    let ok: Result<u8> = Ok(1);
    let segment = || {
        built.set(built.get() + 1);
        "never"
    };
    assert_eq!(ok.with_context(segment)?, 1);
    assert_eq!(built.get(), 0);
    Ok(())
}

#[test]
fn a_layer_names_itself_once_before_its_path() {
    let inner = GuardError::ShapeMismatch {
        op: "linear",
        rule: "the last input dimension must equal the weight rows",
        shapes: vec![vec![2, 3], vec![4, 5]],
    };
    let err = inner
        .context("input_transform")
        .context("input_gate")
        .in_layer("lstm");
    assert_eq!(
        err.to_string(),
        "lstm: input_gate.input_transform: linear: the last input dimension must equal the weight rows; got [2, 3] and [4, 5]"
    );
    assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    assert_eq!(err.op(), "linear");
    assert_eq!(err.layer(), Some("lstm"));
    assert_eq!(err.path().as_deref(), Some("input_gate.input_transform"));
    assert!(matches!(err.root(), GuardError::ShapeMismatch { .. }));
    // Named once: a second layer, or the layer's own op without a path, adds nothing.
    let twice = err.clone().in_layer("bilstm");
    assert_eq!(twice.to_string(), err.to_string());
    let own = GuardError::DimOutOfRange {
        op: "lstm",
        dim: 3,
        rank: 2,
    };
    assert_eq!(own.clone().in_layer("lstm").to_string(), own.to_string());
    assert_eq!(own.in_layer("lstm").layer(), None);
    // A caller's context goes around it, as around any error.
    let outer = err.context("encoder");
    assert_eq!(outer.layer(), Some("lstm"));
    assert!(
        outer
            .to_string()
            .starts_with("encoder: lstm: input_gate.input_transform: ")
    );
    assert_eq!(
        outer.path().as_deref(),
        Some("encoder.input_gate.input_transform")
    );
}

/// A reporter that walks the source chain (`anyhow`'s `{:#}`) prints every cause once: the
/// context path, the operation and burn's own message.
#[test]
fn anyhow_alternate_shows_each_cause_once() -> TestResult {
    let inner: Result<()> = Err(GuardError::Execution {
        op: "into_data",
        cause: ExecutionError::WithContext {
            reason: "device lost".into(),
        },
    });
    let err = inner
        .context("attention")
        .context("layers.2")
        .context("encoder")
        .err()
        .ok_or("expected an error")?;
    let report = anyhow::Error::new(err.clone()).context("forward pass");
    let shown = format!("{report:#}");
    assert_eq!(shown, format!("forward pass: {err}"));
    assert!(!shown.contains('\n'), "{shown}");
    for cause in [
        "forward pass",
        "encoder.layers.2.attention",
        "into_data: backend execution failed",
        "device lost",
    ] {
        assert_eq!(shown.matches(cause).count(), 1, "{cause} in {shown}");
    }
    assert_eq!(anyhow::Error::new(err).chain().count(), 1);
    Ok(())
}

/// `Display` already prints every cause, so no error names a source: not one that wraps
/// another (a context, a layer, a checkpoint, a backtrace), nor one that holds burn's own
/// error.
#[test]
fn no_error_names_a_source() {
    let root = GuardError::DimOutOfRange {
        op: "narrow",
        dim: 3,
        rank: 2,
    };
    let wrapped = [
        root.clone().context("head"),
        root.clone().in_layer("lstm"),
        GuardError::Checkpoint {
            op: "load_file",
            file: "model.bpk".into(),
            device: "flex".into(),
            inner: Box::new(root.clone()),
        },
        GuardError::WithBacktrace {
            inner: Box::new(root),
            backtrace: Arc::new(Backtrace::disabled()),
        },
    ];
    let caused = [
        GuardError::Execution {
            op: "into_data",
            cause: ExecutionError::WithContext {
                reason: "device lost".into(),
            },
        },
        GuardError::from_data(
            "tensor_data",
            DataError::DTypeMismatch {
                expected: DType::F32,
                actual: DType::I32,
            },
        ),
        GuardError::Store {
            op: "load_file",
            cause: Arc::new(std::io::Error::other("truncated")),
        },
    ];
    for err in wrapped.iter().chain(&caused) {
        assert!(std::error::Error::source(err).is_none(), "{err}");
    }
}

#[test]
fn burn_errors_convert_with_question_mark() -> TestResult {
    fn read() -> Result<()> {
        Err(TensorReadError::InvalidShape {
            expected: 1,
            actual: 3,
        })?
    }
    let err = read().err().ok_or("expected an error")?;
    assert!(matches!(
        err,
        GuardError::OutOfRange {
            op: "read",
            name: "elements",
            value: ScalarValue::UInt(3),
            limit: Limit::Exactly(ScalarValue::UInt(1)),
            ..
        }
    ));
    fn data() -> Result<()> {
        Err(DataError::UnsupportedConversion {
            from: DType::QFloat(QuantScheme::default()),
            to: DType::F32,
        })?
    }
    let err = data().err().ok_or("expected an error")?;
    assert_eq!(err.kind(), ErrorKind::Data);
    assert_eq!(err.op(), "tensor_data");
    assert!(std::error::Error::source(&err).is_none());
    fn execute() -> Result<()> {
        Err(ExecutionError::DevicePoisoned {
            reason: "trap".into(),
        })?
    }
    let err = execute().err().ok_or("expected an error")?;
    assert_eq!(err.kind(), ErrorKind::Execution);
    assert_eq!(err.op(), "execute");
    let read_exec: GuardError = TensorReadError::Execution(ExecutionError::WithContext {
        reason: "lost".into(),
    })
    .into();
    assert!(matches!(
        read_exec,
        GuardError::Execution { op: "read", .. }
    ));
    Ok(())
}

/// A backtrace shows in `{:?}` and nowhere else: the message, the kind, the op, the root, the
/// path and the layer are the error's own, wherever the backtrace sits among the wrappers.
#[test]
fn a_backtrace_shows_in_debug_only() -> TestResult {
    let root = GuardError::DimOutOfRange {
        op: "narrow",
        dim: 3,
        rank: 2,
    };
    let around = |inner: GuardError| {
        inner
            .context("input_gate")
            .in_layer("lstm")
            .context("encoder")
    };
    let plain = around(root.clone().context("input_transform"));
    let traced = around(GuardError::WithBacktrace {
        inner: Box::new(root.clone().context("input_transform")),
        backtrace: Arc::new(Backtrace::force_capture()),
    });
    assert_eq!(traced.to_string(), plain.to_string());
    assert_eq!(
        traced.to_string(),
        "encoder: lstm: input_gate.input_transform: narrow: dimension out of range; got dim 3 for rank 2"
    );
    assert_eq!(traced.kind(), ErrorKind::DimOutOfRange);
    assert_eq!(traced.op(), "narrow");
    assert_eq!(traced.message(), plain.message());
    assert_eq!(traced.path(), plain.path());
    assert_eq!(traced.layer(), Some("lstm"));
    assert!(matches!(traced.root(), GuardError::DimOutOfRange { .. }));
    assert!(std::error::Error::source(&traced).is_none());

    assert!(plain.backtrace().is_none());
    let frames = format!("{:?}", traced.backtrace().ok_or("no backtrace")?);
    assert!(
        frames.contains("a_backtrace_shows_in_debug_only"),
        "{frames}"
    );
    assert!(format!("{traced:?}").contains("a_backtrace_shows_in_debug_only"));
    assert!(!format!("{plain:?}").contains("a_backtrace_shows_in_debug_only"));

    // A layer names itself once, through a backtrace around its own error.
    let own = GuardError::WithBacktrace {
        inner: Box::new(root.clone().in_layer("lstm")),
        backtrace: Arc::new(Backtrace::disabled()),
    };
    assert_eq!(
        own.clone().in_layer("lstm").to_string(),
        root.in_layer("lstm").to_string()
    );
    Ok(())
}
