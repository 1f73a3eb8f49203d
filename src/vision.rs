//! Fallible twins of burn-vision's functions and traits (`burn::vision` under burn's `vision`
//! feature; the crate itself, `burn_vision`, here): each runs the rules of
//! [`check::vision`](crate::check::vision), then burn's function under the backstop.
//!
//! Feature `vision` (default). burn-vision's morphology, NMS and connected components are a
//! backend extension: this build compiles its Flex arm (burn-vision's CPU code). NdArray and
//! remote devices have none in burn 0.22, autodiff devices none either (no `Autodiff` arm), and
//! the CubeCL arm needs burn's `fusion` feature; so there
//! the `try_*` methods return [`GuardError::Unsupported`] and the `try_*_with` methods run the
//! op on the policy's first capable device (Flex), its inputs moved there and its output back,
//! counted under [`Op::Vision`]. The filters and colour conversions compose burn tensor ops and
//! run everywhere. burn-vision's `loss` feature (the Gram-matrix loss) is reachable from no
//! burn feature and is not built.
//!
//! On Flex the CPU morphology indexes its kernel and border values without bounds: an anchor
//! outside the kernel, a kernel with no rows, or fewer border values than channels are refused
//! before the call ([`check::vision::morph`](crate::check::vision::morph)).
//!
//! ```
//! use burn::tensor::{Bool, Device, Tensor, TensorData};
//! use burn_guard::prelude::*;
//! use burn_guard::vision::{MorphOptions, Point, TryMorphology};
//!
//! let device = Device::flex();
//! let image = Tensor::<3>::from_data(TensorData::new(vec![0.0f32, 1.0, 0.0, 1.0], [2, 2, 1]), &device);
//! let kernel = Tensor::<2, Bool>::from_data(TensorData::new(vec![true; 4], [2, 2]), &device);
//! let outside = MorphOptions { anchor: Some(Point::new(2, 0)), ..MorphOptions::default() };
//! let err = image.clone().try_dilate(kernel.clone(), outside).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::OutOfRange);
//! let dilated = image.try_dilate(kernel, MorphOptions::default())?;
//! assert_eq!(dilated.dims(), [2, 2, 1]);
//! # Ok::<(), burn_guard::GuardError>(())
//! ```

use burn::tensor::kind::Basic;
use burn::tensor::ops::PadMode;
use burn::tensor::{Bool, Device, Int, Tensor};
pub use burn_vision::{
    BorderType, BoxBlur, BoxBlurConfig, ConnectedStats, ConnectedStatsOptions, Connectivity,
    KernelShape, MedianBlur, MedianBlurConfig, MorphOptions, NmsOptions, Point, Size,
};
use burn_vision::{ColorConversion, ConnectedComponents, Morphology, Nms};

use crate::capability::{BackendStack, Layer, Support, stack_of};
use crate::check::vision as rules;
#[cfg(doc)]
use crate::error::GuardError;
use crate::error::Result;
use crate::gap::{Effect, Gap};
use crate::panic::catch;
use crate::policy::{Op, Policy};
use crate::tensor::same_devices;
use crate::transfer::Extension;

/// Whether `device`'s backend runs burn-vision's extension ops (morphology, NMS, connected
/// components) in this build: Flex. NdArray and remote devices have none in burn 0.22,
/// autodiff devices none either (no `Autodiff` arm), and wgpu's needs burn's `fusion`.
///
/// ```
/// use burn::tensor::Device;
/// use burn_guard::capability::Support;
/// use burn_guard::vision::vision_support;
///
/// assert_eq!(vision_support(&Device::flex()), Support::Native);
/// assert!(!vision_support(&Device::flex().autodiff()).is_native());
/// # #[allow(deprecated)]
/// # let ndarray = Device::ndarray();
/// assert!(!vision_support(&ndarray).is_native());
/// ```
pub fn vision_support(device: &Device) -> Support {
    vision_support_of(stack_of(device))
}

/// [`vision_support`] for a backend stack (`capabilities`' report asks it for each backend).
///
/// ```
/// use burn_guard::capability::BackendStack;
/// use burn_guard::vision::vision_support_of;
///
/// assert!(vision_support_of(&BackendStack::parse("flex")).is_native());
/// assert!(!vision_support_of(&BackendStack::parse("ndarray")).is_native());
/// ```
pub fn vision_support_of(stack: &BackendStack) -> Support {
    if stack.autodiff_depth() > 0 {
        return Support::Gap(Gap::new(
            Effect::Unimplemented,
            "burn-vision's ops have no autodiff implementation: a float tensor of an autodiff \
             device panics \"Autodiff not supported for custom op\" (move it to the inner device \
             first)",
        ));
    }
    let reason = match stack.base() {
        Some(Layer::Flex) => return Support::Native,
        Some(Layer::NdArray) => "burn-vision 0.22 has no NdArray implementation",
        Some(Layer::Remote) => "burn-vision 0.22 has no remote (router) implementation",
        _ => {
            "burn-vision's ops are a backend extension; this build compiles its Flex arm only \
             (the CubeCL arm needs burn's fusion feature, which changes the remote backend)"
        }
    };
    Support::Gap(Gap::new(Effect::Unimplemented, reason))
}

/// burn-vision's backend extension, for [`Extension::run`](crate::transfer::Extension).
const EXTENSION: Extension = Extension {
    routed: Op::Vision,
    family: "vision",
    support: vision_support,
};

mod sealed {
    pub trait Sealed {}
    impl<K: burn::tensor::kind::Basic> Sealed for burn::tensor::Tensor<3, K> {}
    impl<K: burn::tensor::kind::Basic> Sealed for burn::tensor::Tensor<2, K> {}
    impl Sealed for burn::tensor::Tensor<4> {}
}

/// Fallible twins of burn-vision's [`Morphology`] (`erode`, `dilate`) on an `[height, width,
/// channels]` image of floats, ints or bools.
pub trait TryMorphology: sealed::Sealed + Sized {
    /// Fallible twin of [`Morphology::erode`]: not quantized, a kernel with rows and columns
    /// on the image's device, the anchor inside it, a border value per channel
    /// ([`check::vision::morph`](crate::check::vision::morph)), a device whose backend has
    /// burn-vision ([`vision_support`]). An image with an empty dimension comes back as it is
    /// (burn's CPU code divides by that dimension, or reflects into it forever).
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidDType`], [`GuardError::Empty`], [`GuardError::OutOfRange`],
    /// [`GuardError::ShapeMismatch`], [`GuardError::DeviceMismatch`],
    /// [`GuardError::Unsupported`] (NdArray, wgpu, remote, autodiff:
    /// [`try_erode_with`](TryMorphology::try_erode_with) falls back).
    fn try_erode(self, kernel: Tensor<2, Bool>, opts: MorphOptions) -> Result<Self>;

    /// Fallible twin of [`Morphology::dilate`]: the rules of
    /// [`try_erode`](TryMorphology::try_erode).
    ///
    /// # Errors
    ///
    /// As [`try_erode`](TryMorphology::try_erode).
    fn try_dilate(self, kernel: Tensor<2, Bool>, opts: MorphOptions) -> Result<Self>;

    /// [`try_erode`](TryMorphology::try_erode) under `policy`: on a device without
    /// burn-vision, when the policy allows [`Op::Vision`], the image and kernel move to the
    /// first capable device, the result back.
    ///
    /// # Errors
    ///
    /// As [`try_erode`](TryMorphology::try_erode); [`GuardError::Unsupported`] naming every
    /// fallback's gap when none can.
    ///
    /// ```
    /// use burn::tensor::{Bool, Device, Int, Tensor};
    /// use burn_guard::policy::{Op, Policy};
    /// use burn_guard::vision::{MorphOptions, TryMorphology};
    ///
    /// # #[allow(deprecated)]
    /// let ndarray = Device::ndarray();
    /// let policy = Policy::fallback_to([Device::flex()]);
    /// let image = Tensor::<3, Int>::ones([4, 4, 1], &ndarray);
    /// let kernel = Tensor::<2, Bool>::ones([3, 3], &ndarray);
    /// let eroded = image.try_erode_with(kernel, MorphOptions::default(), &policy)?;
    /// assert_eq!(eroded.device(), ndarray);
    /// assert_eq!(policy.stats_of(Op::Vision).fallbacks, 1);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    fn try_erode_with(
        self,
        kernel: Tensor<2, Bool>,
        opts: MorphOptions,
        policy: &Policy,
    ) -> Result<Self>;

    /// [`try_dilate`](TryMorphology::try_dilate) under `policy` (see
    /// [`try_erode_with`](TryMorphology::try_erode_with)).
    ///
    /// # Errors
    ///
    /// As [`try_erode_with`](TryMorphology::try_erode_with).
    fn try_dilate_with(
        self,
        kernel: Tensor<2, Bool>,
        opts: MorphOptions,
        policy: &Policy,
    ) -> Result<Self>;
}

/// Which of the two morphology ops.
#[derive(Clone, Copy)]
enum Morph {
    Erode,
    Dilate,
}

fn morph<K>(
    op: Morph,
    image: Tensor<3, K>,
    kernel: Tensor<2, Bool>,
    opts: MorphOptions,
    policy: &Policy,
) -> Result<Tensor<3, K>>
where
    K: Basic + 'static,
    Tensor<3, K>: Morphology,
{
    let name = match op {
        Morph::Erode => "erode",
        Morph::Dilate => "dilate",
    };
    let checks = || -> Result<()> {
        rules::not_quantized(name, image.dtype())?;
        rules::morph(name, &image.dims(), &kernel.dims(), &opts)?;
        same_devices(name, &[image.device(), kernel.device()])
    };
    policy.checked(Op::Vision, checks())?;
    if image.shape().num_elements() == 0 {
        // Nothing to filter: the exact answer. burn-vision's CPU code divides by an empty
        // dimension, or loops forever reflecting into it, for some border types.
        return Ok(image);
    }
    let home = image.device();
    EXTENSION.run(name, policy, &home, |trip| {
        let image = trip.out(image)?;
        let kernel = trip.out(kernel)?;
        trip.back(catch(name, || match op {
            Morph::Erode => image.erode(kernel, opts),
            Morph::Dilate => image.dilate(kernel, opts),
        })?)
    })
}

impl<K> TryMorphology for Tensor<3, K>
where
    K: Basic + 'static,
    Tensor<3, K>: Morphology,
{
    fn try_erode(self, kernel: Tensor<2, Bool>, opts: MorphOptions) -> Result<Self> {
        morph(Morph::Erode, self, kernel, opts, Policy::shared_strict())
    }

    fn try_dilate(self, kernel: Tensor<2, Bool>, opts: MorphOptions) -> Result<Self> {
        morph(Morph::Dilate, self, kernel, opts, Policy::shared_strict())
    }

    fn try_erode_with(
        self,
        kernel: Tensor<2, Bool>,
        opts: MorphOptions,
        policy: &Policy,
    ) -> Result<Self> {
        morph(Morph::Erode, self, kernel, opts, policy)
    }

    fn try_dilate_with(
        self,
        kernel: Tensor<2, Bool>,
        opts: MorphOptions,
        policy: &Policy,
    ) -> Result<Self> {
        morph(Morph::Dilate, self, kernel, opts, policy)
    }
}

/// Fallible twin of burn-vision's [`Nms`] on `[n, 4]` boxes.
pub trait TryNms: sealed::Sealed {
    /// Fallible twin of [`Nms::nms`]: boxes `[n, 4]`, not quantized, one score per box, on
    /// one device ([`check::vision::nms`](crate::check::vision::nms)), a device whose backend
    /// has burn-vision. Returns the indices of the boxes kept, best first.
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`], [`GuardError::InvalidDType`],
    /// [`GuardError::DeviceMismatch`], [`GuardError::Unsupported`].
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::vision::{NmsOptions, TryNms};
    ///
    /// let device = Device::flex();
    /// let boxes = Tensor::<2>::from_floats([[0.0, 0.0, 2.0, 2.0], [0.1, 0.1, 2.0, 2.0], [5.0, 5.0, 6.0, 6.0]], &device);
    /// let scores = Tensor::<1>::from_floats([0.9, 0.8, 0.7], &device);
    /// let kept = boxes.clone().try_nms(scores.clone(), NmsOptions::default())?;
    /// assert_eq!(kept.into_data().convert::<i64>().try_to_vec::<i64>().unwrap(), [0, 2]);
    /// assert!(boxes.try_nms(scores.slice([0..2]), NmsOptions::default()).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    fn try_nms(self, scores: Tensor<1>, opts: NmsOptions) -> Result<Tensor<1, Int>>;

    /// [`try_nms`](TryNms::try_nms) under `policy`: boxes and scores move to the first capable
    /// device, the indices back.
    ///
    /// # Errors
    ///
    /// As [`try_nms`](TryNms::try_nms); [`GuardError::Unsupported`] naming every fallback's
    /// gap when none can.
    fn try_nms_with(
        self,
        scores: Tensor<1>,
        opts: NmsOptions,
        policy: &Policy,
    ) -> Result<Tensor<1, Int>>;
}

impl TryNms for Tensor<2> {
    fn try_nms(self, scores: Tensor<1>, opts: NmsOptions) -> Result<Tensor<1, Int>> {
        self.try_nms_with(scores, opts, Policy::shared_strict())
    }

    fn try_nms_with(
        self,
        scores: Tensor<1>,
        opts: NmsOptions,
        policy: &Policy,
    ) -> Result<Tensor<1, Int>> {
        const OP: &str = "nms";
        let checks = || -> Result<()> {
            rules::not_quantized(OP, self.dtype())?;
            rules::not_quantized(OP, scores.dtype())?;
            rules::nms(OP, &self.dims(), &scores.dims())?;
            same_devices(OP, &[self.device(), scores.device()])
        };
        policy.checked(Op::Vision, checks())?;
        let home = self.device();
        if let Some(place) = policy.isolation() {
            let op = IsolatedOp::Nms {
                iou_threshold: opts.iou_threshold,
                score_threshold: opts.score_threshold,
                max_output_boxes: opts.max_output_boxes,
            };
            let read = || -> Result<Vec<burn::tensor::TensorData>> {
                Ok(vec![
                    crate::value_reads::read_data_into(OP, self)?,
                    crate::value_reads::read_data_into(OP, scores)?,
                ])
            };
            let inputs = policy.checked(Op::Vision, read())?;
            return op.run(policy, place, inputs, &home);
        }
        EXTENSION.run(OP, policy, &home, |trip| {
            let boxes = trip.out(self)?;
            let scores = trip.out(scores)?;
            trip.back(catch(OP, || boxes.nms(scores, opts))?)
        })
    }
}

/// Fallible twins of burn-vision's [`ConnectedComponents`] on a `[height, width]` bool image.
pub trait TryConnectedComponents: sealed::Sealed {
    /// Fallible twin of [`ConnectedComponents::connected_components`]: a device whose backend
    /// has burn-vision. Returns each pixel's component label; an empty image gets its empty
    /// labels (burn's CPU labelling reads out of bounds on it).
    ///
    /// # Errors
    ///
    /// [`GuardError::Unsupported`].
    ///
    /// ```
    /// use burn::tensor::{Bool, Device, Tensor};
    /// use burn_guard::vision::{Connectivity, TryConnectedComponents};
    ///
    /// let image = Tensor::<2, Bool>::from_bool([[true, false, true]], &Device::flex());
    /// let labels = image.try_connected_components(Connectivity::Four)?;
    /// assert_eq!(labels.dims(), [1, 3]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    fn try_connected_components(self, connectivity: Connectivity) -> Result<Tensor<2, Int>>;

    /// Fallible twin of [`ConnectedComponents::connected_components_with_stats`] (which also
    /// prints a line to standard output, as burn's does): an image with pixels, a device whose
    /// backend has burn-vision.
    ///
    /// # Errors
    ///
    /// [`GuardError::Empty`], [`GuardError::Unsupported`].
    fn try_connected_components_with_stats(
        self,
        connectivity: Connectivity,
        options: ConnectedStatsOptions,
    ) -> Result<(Tensor<2, Int>, ConnectedStats)>;

    /// [`try_connected_components`](TryConnectedComponents::try_connected_components) under
    /// `policy`: the image moves to the first capable device, the labels back.
    ///
    /// # Errors
    ///
    /// [`GuardError::Unsupported`] naming every fallback's gap when none can.
    fn try_connected_components_with(
        self,
        connectivity: Connectivity,
        policy: &Policy,
    ) -> Result<Tensor<2, Int>>;
}

/// A labelling's image must have pixels (burn-vision's CPU code reads out of bounds on an
/// empty one).
fn empty_image(op: &'static str, dims: &[usize]) -> Result<()> {
    if dims.iter().all(|&d| d > 0) {
        return Ok(());
    }
    Err(crate::error::GuardError::Empty {
        op,
        rule: "the image must have pixels (burn-vision's CPU labelling reads out of bounds on an \
               empty one)",
        shape: dims.to_vec(),
        dim: dims.iter().position(|&d| d == 0),
    })
}

impl TryConnectedComponents for Tensor<2, Bool> {
    fn try_connected_components(self, connectivity: Connectivity) -> Result<Tensor<2, Int>> {
        self.try_connected_components_with(connectivity, Policy::shared_strict())
    }

    fn try_connected_components_with_stats(
        self,
        connectivity: Connectivity,
        options: ConnectedStatsOptions,
    ) -> Result<(Tensor<2, Int>, ConnectedStats)> {
        const OP: &str = "connected_components_with_stats";
        empty_image(OP, &self.dims())?;
        let device = self.device();
        if let Support::Gap(gap) = vision_support(&device) {
            return Err(crate::error::GuardError::Unsupported(
                crate::error::Unsupported::new(OP, stack_of(&device).label(), "vision", gap),
            ));
        }
        catch(OP, || {
            self.connected_components_with_stats(connectivity, options)
        })
    }

    fn try_connected_components_with(
        self,
        connectivity: Connectivity,
        policy: &Policy,
    ) -> Result<Tensor<2, Int>> {
        const OP: &str = "connected_components";
        let home = self.device();
        if self.shape().num_elements() == 0 {
            // The exact answer; burn-vision's CPU labelling reads out of bounds on an empty
            // image (a segfault with 8-connectivity here).
            return catch(OP, || Tensor::<2, Int>::empty(self.dims(), &home));
        }
        if let Some(place) = policy.isolation() {
            let op = IsolatedOp::ConnectedComponents {
                eight: match connectivity {
                    Connectivity::Eight => true,
                    Connectivity::Four => false,
                },
            };
            let image = policy.checked(Op::Vision, crate::value_reads::read_data_into(OP, self))?;
            return op.run(policy, place, vec![image], &home);
        }
        EXTENSION.run(OP, policy, &home, |trip| {
            let image = trip.out(self)?;
            trip.back(catch(OP, || image.connected_components(connectivity))?)
        })
    }
}

/// Fallible twin of [`burn_vision::filter2d`]: a kernel with rows and columns on the images'
/// device, images not quantized, and room for the "same"-size reflect padding (shorter than
/// each padded dimension: [`check::vision::same_padding`](crate::check::vision::same_padding)).
/// An empty image comes back as it is (burn's expand, padding and convolution panic on most).
/// Composes burn tensor ops: runs on every backend.
///
/// # Errors
///
/// [`GuardError::Empty`], [`GuardError::OutOfRange`], [`GuardError::InvalidDType`],
/// [`GuardError::DeviceMismatch`]; a backend panic as [`GuardError::BackendPanic`].
///
/// ```
/// use burn::tensor::ops::PadMode;
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::vision::try_filter2d;
///
/// let device = Device::flex();
/// let images = Tensor::<4>::ones([1, 3, 8, 8], &device);
/// let kernel = Tensor::<2>::full([3, 3], 1.0 / 9.0, &device);
/// assert_eq!(try_filter2d(images.clone(), kernel.clone(), PadMode::Reflect)?.dims(), [1, 3, 8, 8]);
/// let tiny = Tensor::<4>::ones([1, 3, 1, 1], &device);
/// assert!(try_filter2d(tiny, kernel, PadMode::Reflect).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_filter2d(images: Tensor<4>, kernel: Tensor<2>, border: PadMode) -> Result<Tensor<4>> {
    const OP: &str = "filter2d";
    let dims = images.dims();
    rules::not_quantized(OP, images.dtype())?;
    rules::not_quantized(OP, kernel.dtype())?;
    rules::kernel_anchor(OP, &kernel.dims(), None)?;
    same_devices(OP, &[images.device(), kernel.device()])?;
    if images.shape().num_elements() == 0 {
        // The exact answer, a same-size output with nothing in it; burn's expand, padding and
        // convolution panic on most empty images.
        return Ok(images);
    }
    let padding = rules::filter2d_padding(&kernel.dims());
    rules::same_padding(OP, &dims, padding, border)?;
    catch(OP, || burn_vision::filter2d(images, kernel, border))
}

/// Fallible twin of [`burn_vision::median`]: a window of at least one pixel, images not
/// quantized. An empty image comes back as it is (burn's padding, slices and sort panic on
/// most empty images).
///
/// # Errors
///
/// [`GuardError::OutOfRange`], [`GuardError::Empty`], [`GuardError::InvalidDType`]; a backend
/// panic as [`GuardError::BackendPanic`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::vision::try_median;
///
/// let images = Tensor::<4>::ones([1, 1, 4, 4], &Device::flex());
/// assert_eq!(try_median(images.clone(), 3)?.dims(), [1, 1, 4, 4]);
/// assert!(try_median(images, 0).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_median(images: Tensor<4>, size: usize) -> Result<Tensor<4>> {
    const OP: &str = "median";
    rules::not_quantized(OP, images.dtype())?;
    rules::median_size(OP, size)?;
    if images.shape().num_elements() == 0 {
        // The exact answer (burn's shape); burn's padding, slices and sort panic on most
        // empty images.
        return Ok(images);
    }
    catch(OP, || burn_vision::median(images, size))
}

/// Fallible twins of burn-vision's [`ColorConversion`] on `[batch, channels, height, width]`
/// images.
pub trait TryColorConversion: sealed::Sealed + Sized {
    /// Fallible twin of [`ColorConversion::rgb2gray`]: 3 channels at least, not quantized.
    ///
    /// # Errors
    ///
    /// [`GuardError::OutOfRange`], [`GuardError::InvalidDType`].
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::vision::TryColorConversion;
    ///
    /// let rgb = Tensor::<4>::ones([1, 3, 2, 2], &Device::flex());
    /// assert_eq!(rgb.clone().try_rgb2gray()?.dims(), [1, 1, 2, 2]);
    /// assert!(rgb.slice([0..1, 0..2]).try_rgb2gray().is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    fn try_rgb2gray(self) -> Result<Tensor<4>>;

    /// Fallible twin of [`ColorConversion::gray2rgb`]: not quantized (each channel is
    /// repeated three times, as burn's does).
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidDType`].
    fn try_gray2rgb(self) -> Result<Tensor<4>>;

    /// Fallible twin of [`ColorConversion::rgb2hsv`]: 3 channels at least, not quantized.
    ///
    /// # Errors
    ///
    /// [`GuardError::OutOfRange`], [`GuardError::InvalidDType`].
    fn try_rgb2hsv(self) -> Result<Tensor<4>>;

    /// Fallible twin of [`ColorConversion::hsv2rgb`]: 3 channels at least, not quantized.
    ///
    /// # Errors
    ///
    /// [`GuardError::OutOfRange`], [`GuardError::InvalidDType`].
    fn try_hsv2rgb(self) -> Result<Tensor<4>>;
}

impl TryColorConversion for Tensor<4> {
    fn try_rgb2gray(self) -> Result<Tensor<4>> {
        convert_colour("rgb2gray", self, true, ColorConversion::rgb2gray)
    }

    fn try_gray2rgb(self) -> Result<Tensor<4>> {
        convert_colour("gray2rgb", self, false, ColorConversion::gray2rgb)
    }

    fn try_rgb2hsv(self) -> Result<Tensor<4>> {
        convert_colour("rgb2hsv", self, true, ColorConversion::rgb2hsv)
    }

    fn try_hsv2rgb(self) -> Result<Tensor<4>> {
        convert_colour("hsv2rgb", self, true, ColorConversion::hsv2rgb)
    }
}

/// A colour conversion's rules (not quantized; 3 channels where it reads three), then burn's
/// `convert` under the backstop.
fn convert_colour(
    op: &'static str,
    image: Tensor<4>,
    reads_three: bool,
    convert: fn(Tensor<4>) -> Tensor<4>,
) -> Result<Tensor<4>> {
    rules::not_quantized(op, image.dtype())?;
    if reads_three {
        rules::colour_channels(op, &image.dims())?;
    }
    catch(op, || convert(image))
}

/// Fallible twin of [`burn_vision::create_structuring_element`]: for a cross, the anchor,
/// when given, inside `ksize` (the cross writes its row and column: past the element, into
/// the next row or out of bounds). The other shapes do not read the anchor.
///
/// # Errors
///
/// [`GuardError::OutOfRange`]; a backend panic as [`GuardError::BackendPanic`].
///
/// ```
/// use burn::tensor::Device;
/// use burn_guard::vision::{KernelShape, Point, Size, try_create_structuring_element};
///
/// let device = Device::flex();
/// let cross = try_create_structuring_element(KernelShape::Cross, Size::new(3, 3), None, &device)?;
/// assert_eq!(cross.dims(), [3, 3]);
/// assert!(try_create_structuring_element(KernelShape::Cross, Size::new(3, 3), Some(Point::new(5, 1)), &device).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_create_structuring_element(
    shape: KernelShape,
    ksize: Size,
    anchor: Option<Point>,
    device: &Device,
) -> Result<Tensor<2, Bool>> {
    const OP: &str = "create_structuring_element";
    // Only the cross reads the anchor (a rectangle, an ellipse and a 1 × 1 element do not).
    if shape == KernelShape::Cross && (ksize.width, ksize.height) != (1, 1) {
        rules::anchor_within(OP, ksize, anchor)?;
    }
    catch(OP, || {
        burn_vision::create_structuring_element(shape, ksize, anchor, device)
    })
}

/// A [`BoxBlur`] with the kernel size its checks need (burn's keeps it private), built by
/// [`TryInit::try_init`](crate::nn::TryInit::try_init) on a [`BoxBlurConfig`].
#[derive(Debug)]
pub struct GuardedBoxBlur {
    blur: BoxBlur,
    kernel_size: usize,
}

impl GuardedBoxBlur {
    /// Fallible twin of [`BoxBlur::apply`]: a [`try_filter2d`] with the blur's kernel and
    /// reflect padding, so the images must be larger than half the kernel in each spatial
    /// dimension.
    ///
    /// # Errors
    ///
    /// As [`try_filter2d`].
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    /// use burn_guard::vision::BoxBlurConfig;
    ///
    /// let device = Device::flex();
    /// let blur = BoxBlurConfig::new().with_kernel_size(5).try_init(&device)?;
    /// assert!(blur.try_apply(Tensor::<4>::ones([1, 1, 2, 2], &device)).is_err());
    /// assert_eq!(blur.try_apply(Tensor::<4>::ones([1, 1, 8, 8], &device))?.dims(), [1, 1, 8, 8]);
    /// assert!(BoxBlurConfig::new().with_kernel_size(4).try_init(&device).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    pub fn try_apply(&self, images: Tensor<4>) -> Result<Tensor<4>> {
        const OP: &str = "box_blur";
        let dims = images.dims();
        rules::not_quantized(OP, images.dtype())?;
        let kernel = [self.kernel_size, self.kernel_size];
        rules::same_padding(
            OP,
            &dims,
            rules::filter2d_padding(&kernel),
            PadMode::Reflect,
        )?;
        catch(OP, || self.blur.apply(images))
    }

    /// Fallible twin of [`BoxBlur::forward`]: with the blur's probability, [`try_apply`](Self::try_apply);
    /// otherwise the images unchanged. The rules run either way, so a batch the blur could
    /// not take is refused whatever the draw.
    ///
    /// # Errors
    ///
    /// As [`try_apply`](Self::try_apply).
    pub fn try_forward(&self, images: Tensor<4>) -> Result<Tensor<4>> {
        const OP: &str = "box_blur";
        rules::not_quantized(OP, images.dtype())?;
        let kernel = [self.kernel_size, self.kernel_size];
        rules::same_padding(
            OP,
            &images.dims(),
            rules::filter2d_padding(&kernel),
            PadMode::Reflect,
        )?;
        catch(OP, || self.blur.forward(images))
    }

    /// Seeds the blur's draws, as [`BoxBlur::with_seed`].
    pub fn with_seed(self, seed: u64) -> Self {
        Self {
            blur: self.blur.with_seed(seed),
            kernel_size: self.kernel_size,
        }
    }

    /// burn's [`BoxBlur`].
    pub fn into_inner(self) -> BoxBlur {
        self.blur
    }
}

/// A [`MedianBlur`] with the kernel size its checks need (burn's keeps it private), built by
/// [`TryInitStateless::try_init`](crate::nn::TryInitStateless::try_init) on a
/// [`MedianBlurConfig`].
#[derive(Debug)]
pub struct GuardedMedianBlur {
    blur: MedianBlur,
    kernel_size: usize,
}

impl GuardedMedianBlur {
    /// Fallible twin of [`MedianBlur::apply`]: a [`try_median`] with the blur's size.
    ///
    /// # Errors
    ///
    /// As [`try_median`].
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    /// use burn_guard::vision::MedianBlurConfig;
    ///
    /// let blur = MedianBlurConfig::new().try_init()?;
    /// let images = Tensor::<4>::ones([1, 1, 4, 4], &Device::flex());
    /// assert_eq!(blur.try_apply(images)?.dims(), [1, 1, 4, 4]);
    /// assert!(MedianBlurConfig::new().with_kernel_size(2).try_init().is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    pub fn try_apply(&self, images: Tensor<4>) -> Result<Tensor<4>> {
        self.median_rules(&images)?;
        catch("median_blur", || self.blur.apply(images))
    }

    /// Fallible twin of [`MedianBlur::forward`]: the rules of [`try_apply`](Self::try_apply)
    /// whatever the draw.
    ///
    /// # Errors
    ///
    /// As [`try_apply`](Self::try_apply).
    pub fn try_forward(&self, images: Tensor<4>) -> Result<Tensor<4>> {
        self.median_rules(&images)?;
        catch("median_blur", || self.blur.forward(images))
    }

    fn median_rules(&self, images: &Tensor<4>) -> Result<()> {
        const OP: &str = "median_blur";
        rules::not_quantized(OP, images.dtype())?;
        if images.shape().num_elements() == 0 {
            return Err(crate::error::GuardError::Empty {
                op: OP,
                rule: "the images must have pixels (burn's padding, slices and sort panic on most \
                       empty images; try_median returns an empty image as it is)",
                shape: images.dims().to_vec(),
                dim: images.dims().iter().position(|&d| d == 0),
            });
        }
        Ok(())
    }

    /// Seeds the blur's draws, as [`MedianBlur::with_seed`].
    pub fn with_seed(self, seed: u64) -> Self {
        Self {
            blur: self.blur.with_seed(seed),
            kernel_size: self.kernel_size,
        }
    }

    /// burn's [`MedianBlur`].
    pub fn into_inner(self) -> MedianBlur {
        self.blur
    }
}

impl crate::nn::InitSealed for BoxBlurConfig {}
impl crate::nn::InitSealed for MedianBlurConfig {}

impl crate::nn::TryInit for BoxBlurConfig {
    type Module = GuardedBoxBlur;

    fn try_init(&self, device: &Device) -> Result<GuardedBoxBlur> {
        const OP: &str = "box_blur_init";
        rules::blur_kernel_size(OP, self.kernel_size)?;
        let blur = catch(OP, || self.init(device))?;
        Ok(GuardedBoxBlur {
            blur,
            kernel_size: self.kernel_size,
        })
    }
}

impl crate::nn::TryInitStateless for MedianBlurConfig {
    type Module = GuardedMedianBlur;

    fn try_init(&self) -> Result<GuardedMedianBlur> {
        const OP: &str = "median_blur_init";
        rules::blur_kernel_size(OP, self.kernel_size)?;
        let blur = catch(OP, || self.init())?;
        Ok(GuardedMedianBlur {
            blur,
            kernel_size: self.kernel_size,
        })
    }
}

pub use burn_vision::utils::{
    BatchDisplayOpts, ColorDisplayOpts, ImageDimOrder, TensorDisplayOptions,
};

/// Fallible twin of [`burn_vision::utils::save_tensor_as_image`]: the tensor's rank the one its
/// dimension order names, not empty (burn normalises by its minimum and maximum), F32 (burn
/// reads its values as `f32` and unwraps), at most 3 channels in RGB (burn's
/// `unimplemented!`) and an output size that fits `u32`
/// ([`check::vision::image_save`](crate::check::vision::image_save)), an image buffer the host
/// can hold; then burn's function, whose file errors come back as [`GuardError::Store`].
///
/// # Errors
///
/// [`GuardError::RankMismatch`], [`GuardError::Empty`], [`GuardError::InvalidDType`],
/// [`GuardError::OutOfRange`], [`GuardError::OutOfMemory`], [`GuardError::Store`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::vision::{ColorDisplayOpts, ImageDimOrder, TensorDisplayOptions, try_save_tensor_as_image};
///
/// let options = |dim_order| TensorDisplayOptions {
///     dim_order,
///     color_opts: ColorDisplayOpts::Rgb,
///     batch_opts: None,
///     width_out: 8,
///     height_out: 8,
/// };
/// let path = std::env::temp_dir().join("burn_guard_doc_image.png");
/// let image = Tensor::<3>::ones([3, 4, 4], &Device::flex());
/// try_save_tensor_as_image(image, options(ImageDimOrder::Chw), &path)?;
/// let four = Tensor::<3>::ones([4, 4, 4], &Device::flex());
/// assert!(try_save_tensor_as_image(four, options(ImageDimOrder::Chw), &path).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_save_tensor_as_image<const D: usize, P: AsRef<std::ffi::OsStr>>(
    tensor: Tensor<D>,
    opts: TensorDisplayOptions,
    path: P,
) -> Result<()> {
    const OP: &str = "save_tensor_as_image";
    let batch = rules::image_save(OP, &tensor.dims(), tensor.dtype(), &opts)?;
    // The image buffer burn allocates on the host (3 bytes a pixel): past the host's memory the
    // allocation aborts the process.
    let rows = match opts.batch_opts {
        Some(BatchDisplayOpts::Tiled) => opts.height_out.saturating_mul(batch),
        _ => opts.height_out,
    };
    let bytes = opts.width_out.saturating_mul(rows).saturating_mul(3);
    if let Some(memory) = crate::capability::host_memory() {
        crate::check::bytes::host_budget(
            OP,
            u64::try_from(bytes).unwrap_or(u64::MAX),
            &memory,
            "host",
        )?;
    }
    catch(OP, || {
        burn_vision::utils::save_tensor_as_image(tensor, opts, path)
    })?
    .map_err(|err| crate::error::GuardError::Store {
        op: OP,
        cause: std::sync::Arc::new(std::io::Error::other(err.to_string())),
    })
}

pub use burn_vision::Transform2D;

/// Fallible twin of burn-vision's [`Transform2D::transform`], as an extension trait.
pub trait TryTransform2D {
    /// Fallible twin of [`Transform2D::transform`]: an image batch that is not quantized. An
    /// empty batch comes back as it is (the exact answer: the output has the input's shape;
    /// burn's `expand` of the matrix refuses a batch of 0). Composes burn tensor ops: runs on
    /// every backend.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidDType`]; a backend panic as [`GuardError::BackendPanic`].
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::vision::{Transform2D, TryTransform2D};
    ///
    /// let images = Tensor::<4>::ones([2, 3, 8, 8], &Device::flex());
    /// let turned = Transform2D::rotation(0.3, 0.0, 0.0).try_transform(images)?;
    /// assert_eq!(turned.dims(), [2, 3, 8, 8]);
    /// let none = Tensor::<4>::ones([0, 3, 8, 8], &Device::flex());
    /// assert_eq!(Transform2D::identity().try_transform(none)?.dims(), [0, 3, 8, 8]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    fn try_transform(self, images: Tensor<4>) -> Result<Tensor<4>>;
}

impl TryTransform2D for Transform2D {
    fn try_transform(self, images: Tensor<4>) -> Result<Tensor<4>> {
        const OP: &str = "transform";
        rules::not_quantized(OP, images.dtype())?;
        if images.shape().num_elements() == 0 {
            return Ok(images);
        }
        catch(OP, || self.transform(images))
    }
}

/// burn-vision's operations that a policy runs out of this process
/// ([`Policy::in_cells`](crate::policy::Policy::in_cells)), with their settings: a name and
/// numbers cross to the place, which runs the same twin and answers one tensor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum IsolatedOp {
    /// `connected_components` of a `[height, width]` bool image: labels back.
    ConnectedComponents {
        /// 8-connectivity, else 4.
        eight: bool,
    },
    /// `nms` of boxes `[n, 4]` and scores `[n]`: kept indices back.
    Nms {
        iou_threshold: f32,
        score_threshold: f32,
        max_output_boxes: usize,
    },
}

impl IsolatedOp {
    /// The name a request carries: burn's.
    const fn name(self) -> &'static str {
        match self {
            IsolatedOp::ConnectedComponents { .. } => "connected_components",
            IsolatedOp::Nms { .. } => "nms",
        }
    }

    fn params(self) -> Vec<f64> {
        match self {
            IsolatedOp::ConnectedComponents { eight } => vec![if eight { 8.0 } else { 4.0 }],
            IsolatedOp::Nms {
                iou_threshold,
                score_threshold,
                max_output_boxes,
            } => vec![
                f64::from(iou_threshold),
                f64::from(score_threshold),
                // Exact up to 2^53 boxes.
                max_output_boxes as f64,
            ],
        }
    }

    /// The operation a request names; `None` for one this module does not define, or settings
    /// that are not its.
    fn parse(name: &str, params: &[f64]) -> Option<Self> {
        match (name, params) {
            ("connected_components", &[c]) if c == 4.0 || c == 8.0 => {
                Some(IsolatedOp::ConnectedComponents { eight: c == 8.0 })
            }
            ("nms", &[iou, score, max])
                if max >= 0.0 && max.fract() == 0.0 && max <= 9_007_199_254_740_992.0 =>
            {
                Some(IsolatedOp::Nms {
                    iou_threshold: iou as f32,
                    score_threshold: score as f32,
                    max_output_boxes: max as usize,
                })
            }
            _ => None,
        }
    }

    /// The caller's side: runs at `place` under `policy` (counted there) and builds the one
    /// answer on `home`, in its own dtype, as a fallback brings a result back.
    fn run<const D: usize, K>(
        self,
        policy: &Policy,
        place: &dyn crate::policy::Isolation,
        inputs: Vec<burn::tensor::TensorData>,
        home: &Device,
    ) -> Result<Tensor<D, K>>
    where
        K: Basic + 'static,
    {
        use crate::tensor::TryCreate as _;

        let op = self.name();
        let label = stack_of(home).label().to_owned();
        let mut outputs =
            policy.run_isolated(Op::Vision, place, op, &self.params(), inputs, &label)?;
        let (Some(data), true) = (outputs.pop(), outputs.is_empty()) else {
            return Err(crate::error::GuardError::ShapeMismatch {
                op,
                rule: "an operation run out of this process answers one tensor",
                shapes: vec![vec![outputs.len()], vec![1]],
            });
        };
        if data.shape().len() != D {
            return Err(crate::error::GuardError::RankMismatch {
                op,
                rule: "an operation run out of this process answers the rank of its twin",
                expected: D,
                got: data.shape().len(),
                shape: data.shape().to_vec(),
            });
        }
        let dtype = data.dtype();
        let options = burn::tensor::TensorCreationOptions::new(home.clone()).with_dtype(dtype);
        Tensor::<D, K>::try_from_data(data, options)
    }
}

/// The place's side (a cell's child): runs the operation a request names through its twin on
/// Flex; `None` when the name is not one of this module's.
pub(crate) fn serve_isolated(
    name: &str,
    params: &[f64],
    inputs: Vec<burn::tensor::TensorData>,
) -> Option<Result<Vec<burn::tensor::TensorData>>> {
    use crate::tensor::TryCreate as _;

    let op = IsolatedOp::parse(name, params)?;
    let device = Device::flex();
    let mut inputs = inputs.into_iter();
    let mut input = |what: &'static str| {
        inputs
            .next()
            .ok_or(crate::error::GuardError::InvalidArgument {
                op: op.name(),
                rule: "an operation run out of this process gets each of its inputs",
                got: format!("no {what}"),
            })
    };
    let mut answer = || -> Result<burn::tensor::TensorData> {
        Ok(match op {
            IsolatedOp::ConnectedComponents { eight } => {
                let image = Tensor::<2, Bool>::try_from_data(input("image")?, &device)?;
                let connectivity = if eight {
                    Connectivity::Eight
                } else {
                    Connectivity::Four
                };
                image.try_connected_components(connectivity)?.into_data()
            }
            IsolatedOp::Nms {
                iou_threshold,
                score_threshold,
                max_output_boxes,
            } => {
                let boxes = Tensor::<2>::try_from_data(input("boxes")?, &device)?;
                let scores = Tensor::<1>::try_from_data(input("scores")?, &device)?;
                let options = NmsOptions {
                    iou_threshold,
                    score_threshold,
                    max_output_boxes,
                };
                boxes.try_nms(scores, options)?.into_data()
            }
        })
    };
    Some(answer().map(|data| vec![data]))
}

#[cfg(test)]
mod tests {
    use super::IsolatedOp;

    #[test]
    fn operations_cross_to_another_process_as_names_and_numbers() {
        for op in [
            IsolatedOp::ConnectedComponents { eight: true },
            IsolatedOp::ConnectedComponents { eight: false },
            IsolatedOp::Nms {
                iou_threshold: 0.25,
                score_threshold: -1.5,
                max_output_boxes: 7,
            },
        ] {
            assert_eq!(IsolatedOp::parse(op.name(), &op.params()), Some(op));
        }
        assert_eq!(IsolatedOp::parse("connected_components", &[6.0]), None);
        assert_eq!(IsolatedOp::parse("nms", &[0.5, 0.0, 1.5]), None);
        assert_eq!(IsolatedOp::parse("svd", &[]), None);
    }
}
