! The Fortran interface of disttranspose (include/disttranspose.h), Fortran 2008 with iso_c_binding.
!
! Every call of the C library, with Fortran names (dtrPlanCreate -> dtr_plan_create) and the same
! arguments in the same order. Differences, each for Fortran's sake:
!   - communicators are Fortran handles: type(MPI_Comm) of mpi_f08, or the integer of `use mpi`
!     (one generic name takes either); the library converts them with MPI_Comm_f2c;
!   - plans, FFT plans, halo plans and grids are derived types holding the C handle, null until
!     created and after destroy;
!   - periodic axes (dtr_halo_plan_create) as logicals, or as C's integers;
!   - buffers are type(c_ptr): c_loc(array) for host arrays (with the target attribute), the
!     pointer cudaMalloc gave for device memory; streams are integer(c_intptr_t), 0 the default;
!   - optional trailing arguments where C takes NULL or -1 (config, rank, stream, grid dimensions);
!   - strings are character(len=:), allocatable.
! Indices the library returns (in_row_start, box%start) count from 0, as in C.
!
! Column-major: a Fortran array a(cols, local_rows) is, in memory, the library's row-major slab of
! local_rows rows of cols entries. A global Fortran array a(n1, n2) split along its last dimension
! is therefore transposed by a plan of rows = n2, cols = n1; the result b(n2, n1), split along its
! last dimension, holds b(j, i) = a(i, j). A box is the Fortran array of its sizes in box%order:
! an FFT's input x(nx, ny_local, nz_local) (X-pencil), its output z(nz, nx_local, ny_local)
! (Z-pencil, nx/2 + 1 in place of nx for R2C, but for a real plan: config%axes real-to-real throughout);
! with config%howmany fields, x(howmany, nx, ny_local, nz_local) and z(howmany, nz, nx_local, ny_local);
! with config%padding, x over the padded grid and z this rank's kept modes (dtr_fft_local_box).
! docs/fortran.md says more.
module disttranspose
  use, intrinsic :: iso_c_binding, only: c_associated, c_char, c_double, c_f_pointer, c_int, c_int64_t, c_intptr_t, &
                                         c_loc, c_null_ptr, c_ptr, c_size_t
  use mpi_f08, only: MPI_Comm
  implicit none
  private

  integer, parameter, public :: DTR_VERSION_MAJOR = 0, DTR_VERSION_MINOR = 1, DTR_VERSION_PATCH = 0

  ! Results (dtrResult_t). Every collective call returns the same one on every rank.
  integer(c_int), parameter, public :: DTR_SUCCESS = 0, DTR_INVALID_ARGUMENT = 1, DTR_MISMATCH = 2, &
                                       DTR_NO_DEVICE = 3, DTR_OUT_OF_MEMORY = 4, DTR_CUDA_ERROR = 5, &
                                       DTR_NCCL_ERROR = 6, DTR_MPI_ERROR = 7, DTR_INTERNAL_ERROR = 8, &
                                       DTR_REMOTE_ERROR = 9, DTR_TIMEOUT = 10
  ! Element types (dtrDataType_t): integer(int8), two 16-bit floats Fortran has no kind for (their
  ! bits in integer(int16) arrays), real(real32), real(real64), complex(real32), complex(real64).
  integer(c_int), parameter, public :: DTR_INT8 = 0, DTR_FLOAT16 = 1, DTR_BFLOAT16 = 2, DTR_FLOAT32 = 3, &
                                       DTR_FLOAT64 = 4, DTR_COMPLEX64 = 5, DTR_COMPLEX128 = 6
  ! Backends, kernels, workspaces and pencils (dtrBackend_t, dtrKernel_t, dtrWorkspace_t, dtrPencil_t).
  integer(c_int), parameter, public :: DTR_BACKEND_AUTO = 0, DTR_BACKEND_NCCL = 1, DTR_BACKEND_CPU = 2, &
                                       DTR_BACKEND_P2P = 3
  integer(c_int), parameter, public :: DTR_KERNEL_AUTO = 0, DTR_KERNEL_SIMT = 1, DTR_KERNEL_SIMT16 = 2, &
                                       DTR_KERNEL_TMA = 3, DTR_KERNEL_TMA_MC2 = 4, DTR_KERNEL_TMA_MC4 = 5
  integer(c_int), parameter, public :: DTR_WORKSPACE_OWN = 0, DTR_WORKSPACE_GRID = 1
  integer(c_int), parameter, public :: DTR_PENCIL_X = 0, DTR_PENCIL_Y = 1, DTR_PENCIL_Z = 2
  ! FFT kinds, directions (FFTW's signs), normalizations and sides (dtrFftKind_t, dtrFftDirection_t,
  ! dtrFftNorm_t, dtrFftSide_t), and the most chunks a plan takes.
  integer(c_int), parameter, public :: DTR_FFT_C2C = 0, DTR_FFT_R2C = 1
  integer(c_int), parameter, public :: DTR_FFT_FORWARD = -1, DTR_FFT_INVERSE = 1
  integer(c_int), parameter, public :: DTR_FFT_NORM_NONE = 0, DTR_FFT_NORM_INVERSE = 1, DTR_FFT_NORM_ORTHO = 2
  integer(c_int), parameter, public :: DTR_FFT_INPUT_SIDE = 0, DTR_FFT_OUTPUT_SIDE = 1
  integer(c_int), parameter, public :: DTR_FFT_MAX_CHUNKS = 64
  ! What an FFT plan does along each axis (dtrFftAxis_t, dtr_fft_config%axes): the DFT, or FFTW's
  ! unnormalized real-to-real kinds for an axis with walls (REDFT10, REDFT01, RODFT10, RODFT01), each
  ! one's inverse the other of its pair (docs/fft.md#cosine-and-sine-transforms-walls).
  integer(c_int), parameter, public :: DTR_FFT_PERIODIC = 0, DTR_FFT_DCT2 = 1, DTR_FFT_DCT3 = 2, DTR_FFT_DST2 = 3, &
                                       DTR_FFT_DST3 = 4
  integer(c_int), parameter, public :: DTR_AUTOTUNE_FFT = 0, DTR_AUTOTUNE_TRANSPOSES = 1, DTR_AUTOTUNE_HALO = 2

  ! dtrConfig_t. The initial values are dtrConfigInit's (the test of the binding checks they agree).
  type, bind(c), public :: dtr_config
    integer(c_int) :: backend = DTR_BACKEND_AUTO
    integer(c_int) :: kernel = DTR_KERNEL_AUTO
    integer(c_int) :: device = -1     ! -1: the device current at plan creation
    integer(c_int) :: stages = 0      ! 0: by size
    integer(c_int) :: workspace = DTR_WORKSPACE_OWN
    integer(c_int) :: inplace = 0
    real(c_double) :: timeout = 0     ! 0: DTR_TIMEOUT's value
  end type

  ! dtrLocalSize_t: what a rank owns. Row starts count from 0.
  type, bind(c), public :: dtr_local_size
    integer(c_int64_t) :: in_rows, in_row_start, out_rows, out_row_start
    integer(c_size_t) :: in_bytes, out_bytes, entry_bytes
  end type

  ! dtrBox_t: a rank's part of a 3-D array; start counts from 0; order(1) is the axis fastest in
  ! memory (0 = x, 1 = y, 2 = z), so the box is the Fortran array (size(order(1)+1), ...).
  type, bind(c), public :: dtr_box
    integer(c_int64_t) :: start(3), size(3)
    integer(c_int) :: order(3)
    integer(c_size_t) :: entry_bytes, bytes
  end type

  ! dtrFftConfig_t, with dtrFftConfigInit's values. transpose%workspace and transpose%inplace are the
  ! FFT's own business: leave them as they are.
  type, bind(c), public :: dtr_fft_config
    type(dtr_config) :: transpose
    integer(c_int) :: chunks = 0      ! 0: by the measured rule (DTR_FFT_CHUNKS overrides 0)
    integer(c_int) :: norm = DTR_FFT_NORM_NONE
    integer(c_int64_t) :: howmany = 1 ! fields of one plan, interleaved: arrays x(howmany, nx, ...)
    ! Per axis x, y, z. C2C: any kinds; R2C: x periodic (y and z any kinds, on the complex side), or every
    ! axis real-to-real: then both sides are real arrays x(nx, ...) of the input's type. The norm's N counts
    ! 2n along a real-to-real axis; DTR_FFT_NORM_ORTHO is refused with one.
    integer(c_int) :: axes(3) = DTR_FFT_PERIODIC
    real(c_double) :: padding(3) = 0  ! per axis x, y, z: 0 or 1 none, else m = floor(n * padding) points on
                                      ! the physical side, the n modes kept on the spectral side (3/2 rule);
                                      ! periodic axes only (refused on a real-to-real one of axes)
  end type

  ! dtrAutotuneTiming_t: one candidate of the grid tuner's report (seconds 0 where it was skipped).
  type, bind(c), public :: dtr_autotune_timing
    integer(c_int) :: pr = 0, pc = 0
    integer(c_int) :: backend = DTR_BACKEND_AUTO
    integer(c_int) :: result = DTR_SUCCESS
    real(c_double) :: seconds = 0
  end type

  ! dtrAutotuneConfig_t, with dtrAutotuneConfigInit's values. transpose%workspace and transpose%inplace
  ! are the tuner's business; timings, capacity and count are set by dtr_grid_autotune from its optional
  ! arguments.
  type, bind(c), public :: dtr_autotune_config
    type(dtr_config) :: transpose
    integer(c_int) :: fft_kind = DTR_FFT_C2C          ! DTR_AUTOTUNE_FFT: C2C or R2C
    integer(c_int64_t) :: howmany = 1                 ! DTR_AUTOTUNE_TRANSPOSES, DTR_AUTOTUNE_HALO
    integer(c_int) :: halo_pencil = DTR_PENCIL_X      ! DTR_AUTOTUNE_HALO
    integer(c_int) :: halo(3) = 1
    integer(c_int) :: periodic(3) = 1
    integer(c_int) :: iterations = 3                  ! timed per candidate, after one untimed
    type(c_ptr) :: timings = c_null_ptr
    integer(c_int) :: capacity = 0
    type(c_ptr) :: count = c_null_ptr
  end type

  type, public :: dtr_plan
    type(c_ptr) :: handle = c_null_ptr
  end type

  type, public :: dtr_fft_plan
    type(c_ptr) :: handle = c_null_ptr
  end type

  type, public :: dtr_grid
    type(c_ptr) :: handle = c_null_ptr
  end type

  type, public :: dtr_halo_plan
    type(c_ptr) :: handle = c_null_ptr
  end type

  public :: dtr_config_init, dtr_get_local_size, dtr_plan_create, dtr_execute, dtr_plan_destroy
  public :: dtr_plan_get_backend, dtr_plan_get_kernel, dtr_plan_get_device, dtr_plan_get_stages, &
            dtr_plan_get_workspace_size
  public :: dtr_grid_create, dtr_grid_destroy, dtr_grid_get_dims, dtr_pencil_box, dtr_plan_create_pencil
  public :: dtr_get_error_string, dtr_get_last_error, dtr_data_type_name, dtr_backend_name, dtr_kernel_name, &
            dtr_pencil_name, dtr_data_type_size
  public :: dtr_fft_config_init, dtr_fft_plan_create, dtr_fft_execute, dtr_fft_get_box, dtr_fft_local_box, &
            dtr_fft_get_workspace_size, dtr_fft_get_chunks, dtr_fft_get_backend, dtr_fft_plan_destroy
  public :: dtr_halo_plan_create, dtr_halo_execute, dtr_halo_execute_adjoint, dtr_halo_get_box, dtr_halo_get_backend, &
            dtr_halo_get_device, dtr_halo_plan_destroy
  public :: dtr_autotune_config_init, dtr_grid_autotune

  ! Periodic axes as Fortran's logicals, or as C's 0 / non-zero integers.
  interface dtr_halo_plan_create
    module procedure halo_plan_create_logical, halo_plan_create_int
  end interface

  ! One name for either kind of communicator handle.
  interface dtr_get_local_size
    module procedure local_size_f08, local_size_int
  end interface
  interface dtr_plan_create
    module procedure plan_create_f08, plan_create_int
  end interface
  interface dtr_grid_autotune
    module procedure grid_autotune_f08, grid_autotune_int
  end interface
  interface dtr_grid_create
    module procedure grid_create_f08, grid_create_int
  end interface

  ! The C library. Communicators go through its *F entry points (MPI_Fint handles).
  interface
    subroutine c_config_init(config) bind(c, name="dtrConfigInit")
      import :: dtr_config
      type(dtr_config), intent(out) :: config
    end subroutine
    integer(c_int) function c_local_size(rows, cols, type, howmany, comm, rank, size) bind(c, name="dtrLocalSizeF")
      import :: c_int, c_int64_t, dtr_local_size
      integer(c_int64_t), value :: rows, cols, howmany
      integer(c_int), value :: type, comm, rank
      type(dtr_local_size), intent(out) :: size
    end function
    integer(c_int) function c_plan_create(plan, rows, cols, type, howmany, comm, config) bind(c, name="dtrPlanCreateF")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), intent(out) :: plan
      integer(c_int64_t), value :: rows, cols, howmany
      integer(c_int), value :: type, comm
      type(c_ptr), value :: config
    end function
    integer(c_int) function c_execute(plan, in, out, stream) bind(c, name="dtrExecute")
      import :: c_int, c_intptr_t, c_ptr
      type(c_ptr), value :: plan, in, out
      integer(c_intptr_t), value :: stream
    end function
    integer(c_int) function c_plan_destroy(plan) bind(c, name="dtrPlanDestroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
    end function
    integer(c_int) function c_plan_get_int(plan, value) bind(c)
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
      integer(c_int), intent(out) :: value
    end function
    integer(c_int) function c_plan_get_workspace_size(plan, bytes) bind(c, name="dtrPlanGetWorkspaceSize")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: plan
      integer(c_size_t), intent(out) :: bytes
    end function
    integer(c_int) function c_grid_create(grid, comm, pr, pc) bind(c, name="dtrGridCreateF")
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: grid
      integer(c_int), value :: comm, pr, pc
    end function
    integer(c_int) function c_grid_destroy(grid) bind(c, name="dtrGridDestroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: grid
    end function
    integer(c_int) function c_grid_get_dims(grid, pr, pc, a, b) bind(c, name="dtrGridGetDims")
      import :: c_int, c_ptr
      type(c_ptr), value :: grid
      integer(c_int), intent(out) :: pr, pc, a, b
    end function
    integer(c_int) function c_pencil_box(grid, shape, pencil, type, howmany, rank, box) bind(c, name="dtrPencilBox")
      import :: c_int, c_int64_t, c_ptr, dtr_box
      type(c_ptr), value :: grid
      integer(c_int64_t), intent(in) :: shape(3)
      integer(c_int), value :: pencil, type, rank
      integer(c_int64_t), value :: howmany
      type(dtr_box), intent(out) :: box
    end function
    integer(c_int) function c_plan_create_pencil(plan, grid, shape, from, to, type, howmany, config) &
        bind(c, name="dtrPlanCreatePencil")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), intent(out) :: plan
      type(c_ptr), value :: grid, config
      integer(c_int64_t), intent(in) :: shape(3)
      integer(c_int), value :: from, to, type
      integer(c_int64_t), value :: howmany
    end function
    subroutine c_autotune_config_init(config) bind(c, name="dtrAutotuneConfigInit")
      import :: dtr_autotune_config
      type(dtr_autotune_config), intent(out) :: config
    end subroutine
    integer(c_int) function c_grid_autotune(comm, shape, type, what, config, pr, pc, backend) bind(c, name="dtrGridAutotuneF")
      import :: c_int, c_int64_t, dtr_autotune_config
      integer(c_int), value :: comm, type, what
      integer(c_int64_t), intent(in) :: shape(3)
      type(dtr_autotune_config), intent(in) :: config
      integer(c_int), intent(out) :: pr, pc, backend
    end function
    subroutine c_fft_config_init(config) bind(c, name="dtrFftConfigInit")
      import :: dtr_fft_config
      type(dtr_fft_config), intent(out) :: config
    end subroutine
    integer(c_int) function c_fft_plan_create(plan, grid, shape, kind, type, config) bind(c, name="dtrFftPlanCreate")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), intent(out) :: plan
      type(c_ptr), value :: grid, config
      integer(c_int64_t), intent(in) :: shape(3)
      integer(c_int), value :: kind, type
    end function
    integer(c_int) function c_fft_execute(plan, in, out, direction, stream) bind(c, name="dtrFftExecute")
      import :: c_int, c_intptr_t, c_ptr
      type(c_ptr), value :: plan, in, out
      integer(c_int), value :: direction
      integer(c_intptr_t), value :: stream
    end function
    integer(c_int) function c_fft_get_box(plan, side, box) bind(c, name="dtrFftGetBox")
      import :: c_int, c_ptr, dtr_box
      type(c_ptr), value :: plan
      integer(c_int), value :: side
      type(dtr_box), intent(out) :: box
    end function
    integer(c_int) function c_fft_local_box(grid, shape, kind, type, config, side, rank, box) bind(c, name="dtrFftLocalBox")
      import :: c_int, c_int64_t, c_ptr, dtr_box
      type(c_ptr), value :: grid, config
      integer(c_int64_t), intent(in) :: shape(3)
      integer(c_int), value :: kind, type, side, rank
      type(dtr_box), intent(out) :: box
    end function
    integer(c_int) function c_fft_plan_destroy(plan) bind(c, name="dtrFftPlanDestroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
    end function
    integer(c_int) function c_halo_plan_create(plan, grid, shape, pencil, type, howmany, halo, periodic, config) &
        bind(c, name="dtrHaloPlanCreate")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), intent(out) :: plan
      type(c_ptr), value :: grid, config
      integer(c_int64_t), intent(in) :: shape(3)
      integer(c_int), value :: pencil, type
      integer(c_int64_t), value :: howmany
      integer(c_int), intent(in) :: halo(3), periodic(3)
    end function
    integer(c_int) function c_halo_execute(plan, buf, stream) bind(c, name="dtrHaloExecute")
      import :: c_int, c_intptr_t, c_ptr
      type(c_ptr), value :: plan, buf
      integer(c_intptr_t), value :: stream
    end function
    integer(c_int) function c_halo_get_box(plan, box) bind(c, name="dtrHaloGetBox")
      import :: c_int, c_ptr, dtr_box
      type(c_ptr), value :: plan
      type(dtr_box), intent(out) :: box
    end function
    type(c_ptr) function c_error_string(result) bind(c, name="dtrGetErrorString")
      import :: c_int, c_ptr
      integer(c_int), value :: result
    end function
    type(c_ptr) function c_last_error() bind(c, name="dtrGetLastError")
      import :: c_ptr
    end function
    type(c_ptr) function c_name_of(value) bind(c)
      import :: c_int, c_ptr
      integer(c_int), value :: value
    end function
    integer(c_size_t) function c_data_type_size(type) bind(c, name="dtrDataTypeSize")
      import :: c_int, c_size_t
      integer(c_int), value :: type
    end function
    integer(c_size_t) function c_strlen(s) bind(c, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
    end function
  end interface

  ! The getters and names share one C shape each; these give each its own C symbol.
  procedure(c_plan_get_int), bind(c, name="dtrPlanGetBackend") :: c_plan_get_backend
  procedure(c_plan_get_int), bind(c, name="dtrPlanGetKernel") :: c_plan_get_kernel
  procedure(c_plan_get_int), bind(c, name="dtrPlanGetDevice") :: c_plan_get_device
  procedure(c_plan_get_int), bind(c, name="dtrPlanGetStages") :: c_plan_get_stages
  procedure(c_plan_get_int), bind(c, name="dtrFftGetChunks") :: c_fft_get_chunks
  procedure(c_plan_get_int), bind(c, name="dtrFftGetBackend") :: c_fft_get_backend
  procedure(c_halo_execute), bind(c, name="dtrHaloExecuteAdjoint") :: c_halo_execute_adjoint
  procedure(c_plan_get_int), bind(c, name="dtrHaloGetBackend") :: c_halo_get_backend
  procedure(c_plan_get_int), bind(c, name="dtrHaloGetDevice") :: c_halo_get_device
  procedure(c_fft_plan_destroy), bind(c, name="dtrHaloPlanDestroy") :: c_halo_plan_destroy
  procedure(c_plan_get_workspace_size), bind(c, name="dtrFftGetWorkspaceSize") :: c_fft_get_workspace_size
  procedure(c_name_of), bind(c, name="dtrDataTypeName") :: c_data_type_name
  procedure(c_name_of), bind(c, name="dtrBackendName") :: c_backend_name
  procedure(c_name_of), bind(c, name="dtrKernelName") :: c_kernel_name
  procedure(c_name_of), bind(c, name="dtrPencilName") :: c_pencil_name

contains

  subroutine dtr_config_init(config)
    type(dtr_config), intent(out) :: config
    call c_config_init(config)
  end subroutine

  ! Not collective: the share of rank `rank` (-1: the caller) of a rows x cols matrix.
  integer(c_int) function local_size_f08(rows, cols, type, howmany, comm, rank, size) result(res)
    integer(c_int64_t), intent(in) :: rows, cols, howmany
    integer(c_int), intent(in) :: type, rank
    type(MPI_Comm), intent(in) :: comm
    type(dtr_local_size), intent(out) :: size
    res = c_local_size(rows, cols, type, howmany, int(comm%MPI_VAL, c_int), rank, size)
  end function

  integer(c_int) function local_size_int(rows, cols, type, howmany, comm, rank, size) result(res)
    integer(c_int64_t), intent(in) :: rows, cols, howmany
    integer(c_int), intent(in) :: type, rank
    integer, intent(in) :: comm
    type(dtr_local_size), intent(out) :: size
    res = c_local_size(rows, cols, type, howmany, int(comm, c_int), rank, size)
  end function

  ! Collective over comm.
  integer(c_int) function plan_create_f08(plan, rows, cols, type, howmany, comm, config) result(res)
    type(dtr_plan), intent(out) :: plan
    integer(c_int64_t), intent(in) :: rows, cols, howmany
    integer(c_int), intent(in) :: type
    type(MPI_Comm), intent(in) :: comm
    type(dtr_config), intent(in), optional, target :: config
    res = c_plan_create(plan%handle, rows, cols, type, howmany, int(comm%MPI_VAL, c_int), config_ptr(config))
  end function

  integer(c_int) function plan_create_int(plan, rows, cols, type, howmany, comm, config) result(res)
    type(dtr_plan), intent(out) :: plan
    integer(c_int64_t), intent(in) :: rows, cols, howmany
    integer(c_int), intent(in) :: type
    integer, intent(in) :: comm
    type(dtr_config), intent(in), optional, target :: config
    res = c_plan_create(plan%handle, rows, cols, type, howmany, int(comm, c_int), config_ptr(config))
  end function

  ! Collective. Device pointers on the GPU backends (ordered on `stream`), host on the cpu backend.
  integer(c_int) function dtr_execute(plan, in, out, stream) result(res)
    type(dtr_plan), intent(in) :: plan
    type(c_ptr), intent(in) :: in, out
    integer(c_intptr_t), intent(in), optional :: stream
    res = c_execute(plan%handle, in, out, optional_stream(stream))
  end function

  ! Collective. The handle is null afterwards.
  integer(c_int) function dtr_plan_destroy(plan) result(res)
    type(dtr_plan), intent(inout) :: plan
    res = c_plan_destroy(plan%handle)
    plan%handle = c_null_ptr
  end function

  integer(c_int) function dtr_plan_get_backend(plan, backend) result(res)
    type(dtr_plan), intent(in) :: plan
    integer(c_int), intent(out) :: backend
    res = c_plan_get_backend(plan%handle, backend)
  end function

  integer(c_int) function dtr_plan_get_kernel(plan, kernel) result(res)
    type(dtr_plan), intent(in) :: plan
    integer(c_int), intent(out) :: kernel
    res = c_plan_get_kernel(plan%handle, kernel)
  end function

  integer(c_int) function dtr_plan_get_device(plan, device) result(res)
    type(dtr_plan), intent(in) :: plan
    integer(c_int), intent(out) :: device
    res = c_plan_get_device(plan%handle, device)
  end function

  integer(c_int) function dtr_plan_get_stages(plan, stages) result(res)
    type(dtr_plan), intent(in) :: plan
    integer(c_int), intent(out) :: stages
    res = c_plan_get_stages(plan%handle, stages)
  end function

  integer(c_int) function dtr_plan_get_workspace_size(plan, bytes) result(res)
    type(dtr_plan), intent(in) :: plan
    integer(c_size_t), intent(out) :: bytes
    res = c_plan_get_workspace_size(plan%handle, bytes)
  end function

  subroutine dtr_autotune_config_init(config)
    type(dtr_autotune_config), intent(out) :: config
    call c_autotune_config_init(config)
  end subroutine

  ! Collective over comm: the fastest pr x pc grid (pr * pc = its size) for `what` (DTR_AUTOTUNE_FFT,
  ! _TRANSPOSES, _HALO) on a global array of `shape` and `type`, measured on every grid; the same on every
  ! rank. backend: the backend it ran on; timings: the report's first size(timings) candidates; count:
  ! how many there were. config (absent: the defaults) as dtrAutotuneConfig_t, its report fields unused.
  integer(c_int) function grid_autotune_f08(comm, shape, type, what, pr, pc, config, backend, timings, count) result(res)
    type(MPI_Comm), intent(in) :: comm
    integer(c_int64_t), intent(in) :: shape(3)
    integer(c_int), intent(in) :: type, what
    integer(c_int), intent(out) :: pr, pc
    type(dtr_autotune_config), intent(in), optional :: config
    integer(c_int), intent(out), optional :: backend, count
    type(dtr_autotune_timing), intent(inout), optional, target, contiguous :: timings(:)
    res = grid_autotune(int(comm%MPI_VAL, c_int), shape, type, what, pr, pc, config, backend, timings, count)
  end function

  integer(c_int) function grid_autotune_int(comm, shape, type, what, pr, pc, config, backend, timings, count) result(res)
    integer, intent(in) :: comm
    integer(c_int64_t), intent(in) :: shape(3)
    integer(c_int), intent(in) :: type, what
    integer(c_int), intent(out) :: pr, pc
    type(dtr_autotune_config), intent(in), optional :: config
    integer(c_int), intent(out), optional :: backend, count
    type(dtr_autotune_timing), intent(inout), optional, target, contiguous :: timings(:)
    res = grid_autotune(int(comm, c_int), shape, type, what, pr, pc, config, backend, timings, count)
  end function

  integer(c_int) function grid_autotune(comm, shape, type, what, pr, pc, config, backend, timings, count) result(res)
    integer(c_int), intent(in) :: comm
    integer(c_int64_t), intent(in) :: shape(3)
    integer(c_int), intent(in) :: type, what
    integer(c_int), intent(out) :: pr, pc
    type(dtr_autotune_config), intent(in), optional :: config
    integer(c_int), intent(out), optional :: backend, count
    type(dtr_autotune_timing), intent(inout), optional, target, contiguous :: timings(:)
    type(dtr_autotune_config) :: c
    integer(c_int) :: chosen
    ! Written by the C call through config%count, which the compiler does not see.
    integer(c_int), target, volatile :: n
    if (present(config)) c = config
    c%timings = c_null_ptr
    c%capacity = 0
    if (present(timings)) then
      if (size(timings) > 0) then
        c%timings = c_loc(timings(1))
        c%capacity = int(size(timings), c_int)
      end if
    end if
    n = 0
    c%count = c_loc(n)
    res = c_grid_autotune(comm, shape, type, what, c, pr, pc, chosen)
    if (present(backend)) backend = chosen
    if (present(count)) count = n
  end function

  ! Collective over comm. pr = pc = 0 (or absent): the squarest grid.
  integer(c_int) function grid_create_f08(grid, comm, pr, pc) result(res)
    type(dtr_grid), intent(out) :: grid
    type(MPI_Comm), intent(in) :: comm
    integer(c_int), intent(in), optional :: pr, pc
    res = c_grid_create(grid%handle, int(comm%MPI_VAL, c_int), optional_int(pr, 0), optional_int(pc, 0))
  end function

  integer(c_int) function grid_create_int(grid, comm, pr, pc) result(res)
    type(dtr_grid), intent(out) :: grid
    integer, intent(in) :: comm
    integer(c_int), intent(in), optional :: pr, pc
    res = c_grid_create(grid%handle, int(comm, c_int), optional_int(pr, 0), optional_int(pc, 0))
  end function

  ! Local. Plans made on the grid stay valid.
  integer(c_int) function dtr_grid_destroy(grid) result(res)
    type(dtr_grid), intent(inout) :: grid
    res = c_grid_destroy(grid%handle)
    grid%handle = c_null_ptr
  end function

  integer(c_int) function dtr_grid_get_dims(grid, pr, pc, a, b) result(res)
    type(dtr_grid), intent(in) :: grid
    integer(c_int), intent(out), optional :: pr, pc, a, b
    integer(c_int) :: dims(4)
    res = c_grid_get_dims(grid%handle, dims(1), dims(2), dims(3), dims(4))
    if (present(pr)) pr = dims(1)
    if (present(pc)) pc = dims(2)
    if (present(a)) a = dims(3)
    if (present(b)) b = dims(4)
  end function

  ! Not collective: the box of `pencil` held by grid rank `rank` (absent or -1: the caller).
  integer(c_int) function dtr_pencil_box(grid, shape, pencil, type, howmany, box, rank) result(res)
    type(dtr_grid), intent(in) :: grid
    integer(c_int64_t), intent(in) :: shape(3), howmany
    integer(c_int), intent(in) :: pencil, type
    type(dtr_box), intent(out) :: box
    integer(c_int), intent(in), optional :: rank
    res = c_pencil_box(grid%handle, shape, pencil, type, howmany, optional_int(rank, -1), box)
  end function

  ! Collective over the grid: moves the array from `from` pencils to `to` pencils.
  integer(c_int) function dtr_plan_create_pencil(plan, grid, shape, from, to, type, howmany, config) result(res)
    type(dtr_plan), intent(out) :: plan
    type(dtr_grid), intent(in) :: grid
    integer(c_int64_t), intent(in) :: shape(3), howmany
    integer(c_int), intent(in) :: from, to, type
    type(dtr_config), intent(in), optional, target :: config
    res = c_plan_create_pencil(plan%handle, grid%handle, shape, from, to, type, howmany, config_ptr(config))
  end function

  function dtr_get_error_string(result) result(s)
    integer(c_int), intent(in) :: result
    character(len=:), allocatable :: s
    s = fortran_string(c_error_string(result))
  end function

  ! The message of the last failed call on this thread, naming the problem.
  function dtr_get_last_error() result(s)
    character(len=:), allocatable :: s
    s = fortran_string(c_last_error())
  end function

  function dtr_data_type_name(type) result(s)
    integer(c_int), intent(in) :: type
    character(len=:), allocatable :: s
    s = fortran_string(c_data_type_name(type))
  end function

  function dtr_backend_name(backend) result(s)
    integer(c_int), intent(in) :: backend
    character(len=:), allocatable :: s
    s = fortran_string(c_backend_name(backend))
  end function

  function dtr_kernel_name(kernel) result(s)
    integer(c_int), intent(in) :: kernel
    character(len=:), allocatable :: s
    s = fortran_string(c_kernel_name(kernel))
  end function

  function dtr_pencil_name(pencil) result(s)
    integer(c_int), intent(in) :: pencil
    character(len=:), allocatable :: s
    s = fortran_string(c_pencil_name(pencil))
  end function

  ! Bytes of one element of `type` (0 for an unknown type).
  integer(c_size_t) function dtr_data_type_size(type) result(bytes)
    integer(c_int), intent(in) :: type
    bytes = c_data_type_size(type)
  end function

  ! ---- 3-D FFTs ------------------------------------------------------------------------------

  subroutine dtr_fft_config_init(config)
    type(dtr_fft_config), intent(out) :: config
    call c_fft_config_init(config)
  end subroutine

  ! Collective over the grid. shape = [nx, ny, nz] of the real (R2C) or complex (C2C) array; kind
  ! DTR_FFT_C2C (type DTR_COMPLEX64/128) or DTR_FFT_R2C (type DTR_FLOAT32/64, the real side).
  integer(c_int) function dtr_fft_plan_create(plan, grid, shape, kind, type, config) result(res)
    type(dtr_fft_plan), intent(out) :: plan
    type(dtr_grid), intent(in) :: grid
    integer(c_int64_t), intent(in) :: shape(3)
    integer(c_int), intent(in) :: kind, type
    type(dtr_fft_config), intent(in), optional, target :: config
    res = c_fft_plan_create(plan%handle, grid%handle, shape, kind, type, fft_config_ptr(config))
  end function

  ! Collective. DTR_FFT_FORWARD: in is this rank's input box (X-pencil), out its output box (Z-pencil);
  ! DTR_FFT_INVERSE the other way round. Buffers and stream as dtr_execute's; in == out only for C2C.
  integer(c_int) function dtr_fft_execute(plan, in, out, direction, stream) result(res)
    type(dtr_fft_plan), intent(in) :: plan
    type(c_ptr), intent(in) :: in, out
    integer(c_int), intent(in) :: direction
    integer(c_intptr_t), intent(in), optional :: stream
    res = c_fft_execute(plan%handle, in, out, direction, optional_stream(stream))
  end function

  ! Not collective: this rank's box of one side (DTR_FFT_INPUT_SIDE or DTR_FFT_OUTPUT_SIDE).
  integer(c_int) function dtr_fft_get_box(plan, side, box) result(res)
    type(dtr_fft_plan), intent(in) :: plan
    integer(c_int), intent(in) :: side
    type(dtr_box), intent(out) :: box
    res = c_fft_get_box(plan%handle, side, box)
  end function

  ! Not collective: the box of `side` that a plan of these arguments gives grid rank `rank` (absent: the
  ! caller), before the plan is made, to allocate its arrays (with config%padding, the output side's kept
  ! modes follow the padded grid's boxes). The same as dtr_fft_get_box's.
  integer(c_int) function dtr_fft_local_box(grid, shape, kind, type, side, box, config, rank) result(res)
    type(dtr_grid), intent(in) :: grid
    integer(c_int64_t), intent(in) :: shape(3)
    integer(c_int), intent(in) :: kind, type, side
    type(dtr_box), intent(out) :: box
    type(dtr_fft_config), intent(in), optional, target :: config
    integer(c_int), intent(in), optional :: rank
    res = c_fft_local_box(grid%handle, shape, kind, type, fft_config_ptr(config), side, optional_int(rank, -1), box)
  end function

  integer(c_int) function dtr_fft_get_workspace_size(plan, bytes) result(res)
    type(dtr_fft_plan), intent(in) :: plan
    integer(c_size_t), intent(out) :: bytes
    res = c_fft_get_workspace_size(plan%handle, bytes)
  end function

  integer(c_int) function dtr_fft_get_chunks(plan, chunks) result(res)
    type(dtr_fft_plan), intent(in) :: plan
    integer(c_int), intent(out) :: chunks
    res = c_fft_get_chunks(plan%handle, chunks)
  end function

  integer(c_int) function dtr_fft_get_backend(plan, backend) result(res)
    type(dtr_fft_plan), intent(in) :: plan
    integer(c_int), intent(out) :: backend
    res = c_fft_get_backend(plan%handle, backend)
  end function

  ! Collective. The handle is null afterwards.
  integer(c_int) function dtr_fft_plan_destroy(plan) result(res)
    type(dtr_fft_plan), intent(inout) :: plan
    res = c_fft_plan_destroy(plan%handle)
    plan%handle = c_null_ptr
  end function

  ! ---- Halo exchanges ------------------------------------------------------------------------

  ! Collective over the grid. halo = [hx, hy, hz]: cells on both sides of each axis; periodic(a) wraps
  ! axis a (logical, or integer(c_int) as in C). The padded array (dtr_halo_get_box) is the pencil's
  ! box with halo(a) more cells on both sides of each axis a, in the pencil's order.
  integer(c_int) function halo_plan_create_logical(plan, grid, shape, pencil, type, howmany, halo, periodic, config) &
      result(res)
    type(dtr_halo_plan), intent(out) :: plan
    type(dtr_grid), intent(in) :: grid
    integer(c_int64_t), intent(in) :: shape(3), howmany
    integer(c_int), intent(in) :: pencil, type, halo(3)
    logical, intent(in) :: periodic(3)
    type(dtr_config), intent(in), optional, target :: config
    res = c_halo_plan_create(plan%handle, grid%handle, shape, pencil, type, howmany, halo, &
                             merge(1_c_int, 0_c_int, periodic), config_ptr(config))
  end function

  integer(c_int) function halo_plan_create_int(plan, grid, shape, pencil, type, howmany, halo, periodic, config) &
      result(res)
    type(dtr_halo_plan), intent(out) :: plan
    type(dtr_grid), intent(in) :: grid
    integer(c_int64_t), intent(in) :: shape(3), howmany
    integer(c_int), intent(in) :: pencil, type, halo(3), periodic(3)
    type(dtr_config), intent(in), optional, target :: config
    res = c_halo_plan_create(plan%handle, grid%handle, shape, pencil, type, howmany, halo, periodic, config_ptr(config))
  end function

  ! Collective, in place on this rank's padded array: c_loc of a host array on the cpu backend, device
  ! memory on the GPU backends (ordered on `stream`).
  integer(c_int) function dtr_halo_execute(plan, buf, stream) result(res)
    type(dtr_halo_plan), intent(in) :: plan
    type(c_ptr), intent(in) :: buf
    integer(c_intptr_t), intent(in), optional :: stream
    res = c_halo_execute(plan%handle, buf, optional_stream(stream))
  end function

  ! Collective, the adjoint of dtr_halo_execute on the same array: every halo cell the execute writes is
  ! added into the interior cell it copies and then zeroed (the sums' order: docs/fft.md#the-adjoint).
  integer(c_int) function dtr_halo_execute_adjoint(plan, buf, stream) result(res)
    type(dtr_halo_plan), intent(in) :: plan
    type(c_ptr), intent(in) :: buf
    integer(c_intptr_t), intent(in), optional :: stream
    res = c_halo_execute_adjoint(plan%handle, buf, optional_stream(stream))
  end function

  ! Not collective: this rank's padded box (start = the box's start - halo, size = its size + 2 halo).
  integer(c_int) function dtr_halo_get_box(plan, padded) result(res)
    type(dtr_halo_plan), intent(in) :: plan
    type(dtr_box), intent(out) :: padded
    res = c_halo_get_box(plan%handle, padded)
  end function

  integer(c_int) function dtr_halo_get_backend(plan, backend) result(res)
    type(dtr_halo_plan), intent(in) :: plan
    integer(c_int), intent(out) :: backend
    res = c_halo_get_backend(plan%handle, backend)
  end function

  ! The GPU the plan exchanges on; -1 on the cpu backend.
  integer(c_int) function dtr_halo_get_device(plan, device) result(res)
    type(dtr_halo_plan), intent(in) :: plan
    integer(c_int), intent(out) :: device
    res = c_halo_get_device(plan%handle, device)
  end function

  ! Collective. The handle is null afterwards.
  integer(c_int) function dtr_halo_plan_destroy(plan) result(res)
    type(dtr_halo_plan), intent(inout) :: plan
    res = c_halo_plan_destroy(plan%handle)
    plan%handle = c_null_ptr
  end function

  ! ---- helpers -------------------------------------------------------------------------------

  ! One per config type: a generic name cannot tell two optional-only arguments apart.
  type(c_ptr) function config_ptr(config) result(p)
    type(dtr_config), intent(in), optional, target :: config
    p = c_null_ptr
    if (present(config)) p = c_loc(config)
  end function

  type(c_ptr) function fft_config_ptr(config) result(p)
    type(dtr_fft_config), intent(in), optional, target :: config
    p = c_null_ptr
    if (present(config)) p = c_loc(config)
  end function

  integer(c_intptr_t) function optional_stream(stream)
    integer(c_intptr_t), intent(in), optional :: stream
    optional_stream = 0
    if (present(stream)) optional_stream = stream
  end function

  integer(c_int) function optional_int(value, default)
    integer(c_int), intent(in), optional :: value
    integer(c_int), intent(in) :: default
    optional_int = default
    if (present(value)) optional_int = value
  end function

  ! A C string (NULL: empty) as a Fortran string of its length.
  function fortran_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer(c_size_t) :: n, i
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = c_strlen(p)
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function

end module disttranspose
