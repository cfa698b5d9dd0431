"""Six Rodinia benchmarks ported to numba-cuda, kernel for kernel (data, launches and
references: `rodinia.py`; like `kernels.py`, nothing here is decorated).

Ported as a numba user ports Rodinia's CUDA: the same kernels, block shapes, shared tiles and
barriers, with 2-D arrays where Rodinia computes flat offsets. hotspot: `calculate_temp`;
srad: srad_v2's `srad_cuda_1` / `_2`, plus the region statistics srad_v2 computes on the host
between them, here on the device as srad_v1 does (`srad_reduce`, `srad_stats`); the port does
not read the rows above and below the image that the original reads before replacing them
(out of bounds); nw: `needle_cuda_shared_1` / `_2`; pathfinder: `dynproc_kernel`; lud:
`lud_diagonal` / `_perimeter` / `_internal`; backprop: `bpnn_layerforward_CUDA` (which here
leaves the weights alone instead of writing its reduction tree into them) and
`bpnn_adjust_weights_cuda`, the block index along x (Rodinia's y caps the input at 65535
blocks).
"""
from numba import cuda, float32, int32

HS_BLOCK = 16      # hotspot: BLOCK_SIZE x BLOCK_SIZE threads and tiles
SRAD_BLOCK = 16    # srad: BLOCK_SIZE x BLOCK_SIZE threads and tiles
SRAD_THREADS = 256  # srad's reductions: at most this many threads per block, a power of two
NW_BLOCK = 16      # nw: BLOCK_SIZE threads
NW_TEMP = 17       # nw: the (BLOCK_SIZE + 1)^2 score tile (a shared shape must be a constant)
PF_BLOCK = 256     # pathfinder: BLOCK_SIZE threads and shared row
LUD_BLOCK = 16     # lud: BLOCK_SIZE; the matrix order is a multiple of it
BP_WIDTH = 16      # backprop: WIDTH x HEIGHT threads, the hidden layer has WIDTH units
BP_HEIGHT = 16
BP_LOG2_HEIGHT = 4
BP_ETA = 0.3
BP_MOMENTUM = 0.3


# -- hotspot --------------------------------------------------------------------------------

def hotspot(iteration, power, temp_src, temp_dst, border_cols, border_rows, cap, rx, ry, rz,
            step):
    temp_on = cuda.shared.array((HS_BLOCK, HS_BLOCK), float32)
    power_on = cuda.shared.array((HS_BLOCK, HS_BLOCK), float32)
    temp_t = cuda.shared.array((HS_BLOCK, HS_BLOCK), float32)
    grid_rows, grid_cols = temp_src.shape
    amb_temp = float32(80.0)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    step_div_cap = step / cap
    rx_1 = float32(1.0) / rx
    ry_1 = float32(1.0) / ry
    rz_1 = float32(1.0) / rz
    # the block computes a small block of BLOCK - 2 * iteration cells after `iteration` steps
    small_block = HS_BLOCK - iteration * 2
    blk_y = small_block * cuda.blockIdx.y - border_rows
    blk_x = small_block * cuda.blockIdx.x - border_cols
    blk_ymax = blk_y + HS_BLOCK - 1
    blk_xmax = blk_x + HS_BLOCK - 1
    yidx = blk_y + ty
    xidx = blk_x + tx
    if yidx >= 0 and yidx <= grid_rows - 1 and xidx >= 0 and xidx <= grid_cols - 1:
        temp_on[ty, tx] = temp_src[yidx, xidx]
        power_on[ty, tx] = power[yidx, xidx]
    cuda.syncthreads()
    # the part of the tile inside the grid; neighbours outside it are clamped to the edge
    valid_ymin = -blk_y if blk_y < 0 else 0
    valid_ymax = HS_BLOCK - 1 - (blk_ymax - grid_rows + 1) if blk_ymax > grid_rows - 1 \
        else HS_BLOCK - 1
    valid_xmin = -blk_x if blk_x < 0 else 0
    valid_xmax = HS_BLOCK - 1 - (blk_xmax - grid_cols + 1) if blk_xmax > grid_cols - 1 \
        else HS_BLOCK - 1
    n = max(ty - 1, valid_ymin)
    s = min(ty + 1, valid_ymax)
    w = max(tx - 1, valid_xmin)
    e = min(tx + 1, valid_xmax)
    computed = False
    for i in range(iteration):
        computed = False
        if (tx >= i + 1 and tx <= HS_BLOCK - i - 2 and ty >= i + 1 and ty <= HS_BLOCK - i - 2
                and tx >= valid_xmin and tx <= valid_xmax
                and ty >= valid_ymin and ty <= valid_ymax):
            computed = True
            t = temp_on[ty, tx]
            temp_t[ty, tx] = t + step_div_cap * (
                power_on[ty, tx]
                + (temp_on[s, tx] + temp_on[n, tx] - float32(2.0) * t) * ry_1
                + (temp_on[ty, e] + temp_on[ty, w] - float32(2.0) * t) * rx_1
                + (amb_temp - t) * rz_1)
        cuda.syncthreads()
        if i == iteration - 1:
            break
        if computed:
            temp_on[ty, tx] = temp_t[ty, tx]
        cuda.syncthreads()
    if computed:
        temp_dst[yidx, xidx] = temp_t[ty, tx]


# -- srad -----------------------------------------------------------------------------------

def srad_reduce(j, r1, r2, c1, c2, partial):
    """Per-block sums of J and J*J over the region of interest rows r1..r2, columns c1..c2."""
    ssum = cuda.shared.array(SRAD_THREADS, float32)
    ssum2 = cuda.shared.array(SRAD_THREADS, float32)
    tid = cuda.threadIdx.x
    width = c2 - c1 + 1
    acc = float32(0.0)
    acc2 = float32(0.0)
    for k in range(cuda.grid(1), (r2 - r1 + 1) * width, cuda.gridsize(1)):
        v = j[r1 + k // width, c1 + k % width]
        acc += v
        acc2 += v * v
    ssum[tid] = acc
    ssum2[tid] = acc2
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            ssum[tid] += ssum[tid + s]
            ssum2[tid] += ssum2[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        partial[cuda.blockIdx.x, 0] = ssum[0]
        partial[cuda.blockIdx.x, 1] = ssum2[0]


def srad_stats(partial, size_r, stats):
    """One block: the partial sums' totals, then q0sqr = variance / mean^2 of the region."""
    ssum = cuda.shared.array(SRAD_THREADS, float32)
    ssum2 = cuda.shared.array(SRAD_THREADS, float32)
    tid = cuda.threadIdx.x
    acc = float32(0.0)
    acc2 = float32(0.0)
    for k in range(tid, partial.shape[0], cuda.blockDim.x):
        acc += partial[k, 0]
        acc2 += partial[k, 1]
    ssum[tid] = acc
    ssum2[tid] = acc2
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            ssum[tid] += ssum[tid + s]
            ssum2[tid] += ssum2[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        mean = ssum[0] / size_r
        var = ssum2[0] / size_r - mean * mean
        stats[0] = var / (mean * mean)


def srad_1(e_c, w_c, n_c, s_c, j, c, stats):
    """Directional derivatives and the saturated diffusion coefficient of every pixel."""
    temp = cuda.shared.array((SRAD_BLOCK, SRAD_BLOCK), float32)
    temp_result = cuda.shared.array((SRAD_BLOCK, SRAD_BLOCK), float32)
    north = cuda.shared.array((SRAD_BLOCK, SRAD_BLOCK), float32)
    south = cuda.shared.array((SRAD_BLOCK, SRAD_BLOCK), float32)
    east = cuda.shared.array((SRAD_BLOCK, SRAD_BLOCK), float32)
    west = cuda.shared.array((SRAD_BLOCK, SRAD_BLOCK), float32)
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row0 = SRAD_BLOCK * by
    col0 = SRAD_BLOCK * bx
    row = row0 + ty
    col = col0 + tx
    q0sqr = stats[0]
    # the rows above and below the tile, clamped at the image border
    if by == 0:
        north[ty, tx] = j[row0, col]
    else:
        north[ty, tx] = j[row0 - 1, col]
    if by == cuda.gridDim.y - 1:
        south[ty, tx] = j[row0 + SRAD_BLOCK - 1, col]
    else:
        south[ty, tx] = j[row0 + SRAD_BLOCK, col]
    cuda.syncthreads()
    if bx == 0:
        west[ty, tx] = j[row, col0]
    else:
        west[ty, tx] = j[row, col0 - 1]
    if bx == cuda.gridDim.x - 1:
        east[ty, tx] = j[row, col0 + SRAD_BLOCK - 1]
    else:
        east[ty, tx] = j[row, col0 + SRAD_BLOCK]
    cuda.syncthreads()
    temp[ty, tx] = j[row, col]
    cuda.syncthreads()
    jc = temp[ty, tx]
    if ty == 0:
        n = north[ty, tx] - jc
    else:
        n = temp[ty - 1, tx] - jc
    if ty == SRAD_BLOCK - 1:
        s = south[ty, tx] - jc
    else:
        s = temp[ty + 1, tx] - jc
    if tx == 0:
        w = west[ty, tx] - jc
    else:
        w = temp[ty, tx - 1] - jc
    if tx == SRAD_BLOCK - 1:
        e = east[ty, tx] - jc
    else:
        e = temp[ty, tx + 1] - jc
    g2 = (n * n + s * s + w * w + e * e) / (jc * jc)
    lap = (n + s + w + e) / jc
    num = (0.5 * g2) - ((1.0 / 16.0) * (lap * lap))
    den = 1 + (0.25 * lap)
    qsqr = num / (den * den)
    den = (qsqr - q0sqr) / (q0sqr * (1 + q0sqr))     # diffusion coefficient (equ 33)
    coef = 1.0 / (1.0 + den)
    if coef < 0:                                       # saturated
        temp_result[ty, tx] = 0
    elif coef > 1:
        temp_result[ty, tx] = 1
    else:
        temp_result[ty, tx] = coef
    cuda.syncthreads()
    c[row, col] = temp_result[ty, tx]
    e_c[row, col] = e
    w_c[row, col] = w
    s_c[row, col] = s
    n_c[row, col] = n


def srad_2(e_c, w_c, n_c, s_c, j, c, lam):
    """The divergence of the diffusion and the image update."""
    south_c = cuda.shared.array((SRAD_BLOCK, SRAD_BLOCK), float32)
    east_c = cuda.shared.array((SRAD_BLOCK, SRAD_BLOCK), float32)
    c_temp = cuda.shared.array((SRAD_BLOCK, SRAD_BLOCK), float32)
    c_result = cuda.shared.array((SRAD_BLOCK, SRAD_BLOCK), float32)
    temp = cuda.shared.array((SRAD_BLOCK, SRAD_BLOCK), float32)
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row0 = SRAD_BLOCK * by
    col0 = SRAD_BLOCK * bx
    row = row0 + ty
    col = col0 + tx
    temp[ty, tx] = j[row, col]
    cuda.syncthreads()
    if by == cuda.gridDim.y - 1:
        south_c[ty, tx] = c[row0 + SRAD_BLOCK - 1, col]
    else:
        south_c[ty, tx] = c[row0 + SRAD_BLOCK, col]
    cuda.syncthreads()
    if bx == cuda.gridDim.x - 1:
        east_c[ty, tx] = c[row, col0 + SRAD_BLOCK - 1]
    else:
        east_c[ty, tx] = c[row, col0 + SRAD_BLOCK]
    cuda.syncthreads()
    c_temp[ty, tx] = c[row, col]
    cuda.syncthreads()
    cc = c_temp[ty, tx]
    if ty == SRAD_BLOCK - 1:
        cs = south_c[ty, tx]
    else:
        cs = c_temp[ty + 1, tx]
    if tx == SRAD_BLOCK - 1:
        ce = east_c[ty, tx]
    else:
        ce = c_temp[ty, tx + 1]
    # divergence (equ 58): the north and west coefficients are the pixel's own
    d_sum = cc * n_c[row, col] + cs * s_c[row, col] + cc * w_c[row, col] + ce * e_c[row, col]
    c_result[ty, tx] = temp[ty, tx] + 0.25 * lam * d_sum      # image update (equ 61)
    cuda.syncthreads()
    j[row, col] = c_result[ty, tx]


# -- nw -------------------------------------------------------------------------------------

def nw_shared_1(reference, matrix, penalty, i):
    """Blocks on the i-th anti-diagonal of the top-left triangle of tiles."""
    temp = cuda.shared.array((NW_TEMP, NW_TEMP), int32)
    ref = cuda.shared.array((NW_BLOCK, NW_BLOCK), int32)
    bx = cuda.blockIdx.x
    tx = cuda.threadIdx.x
    row0 = NW_BLOCK * (i - 1 - bx)          # the tile's north-west corner cell
    col0 = NW_BLOCK * bx
    if tx == 0:
        temp[0, 0] = matrix[row0, col0]
    for ty in range(NW_BLOCK):
        ref[ty, tx] = reference[row0 + ty + 1, col0 + tx + 1]
    cuda.syncthreads()
    temp[tx + 1, 0] = matrix[row0 + tx + 1, col0]
    cuda.syncthreads()
    temp[0, tx + 1] = matrix[row0, col0 + tx + 1]
    cuda.syncthreads()
    for m in range(NW_BLOCK):
        if tx <= m:
            x = tx + 1
            y = m - tx + 1
            temp[y, x] = max(max(temp[y - 1, x - 1] + ref[y - 1, x - 1],
                                 temp[y, x - 1] - penalty), temp[y - 1, x] - penalty)
        cuda.syncthreads()
    for m in range(NW_BLOCK - 2, -1, -1):
        if tx <= m:
            x = tx + NW_BLOCK - m
            y = NW_BLOCK - tx
            temp[y, x] = max(max(temp[y - 1, x - 1] + ref[y - 1, x - 1],
                                 temp[y, x - 1] - penalty), temp[y - 1, x] - penalty)
        cuda.syncthreads()
    for ty in range(NW_BLOCK):
        matrix[row0 + ty + 1, col0 + tx + 1] = temp[ty + 1, tx + 1]


def nw_shared_2(reference, matrix, penalty, i, block_width):
    """Blocks on the i-th anti-diagonal (counted back) of the bottom-right triangle."""
    temp = cuda.shared.array((NW_TEMP, NW_TEMP), int32)
    ref = cuda.shared.array((NW_BLOCK, NW_BLOCK), int32)
    bx = cuda.blockIdx.x
    tx = cuda.threadIdx.x
    row0 = NW_BLOCK * (block_width - bx - 1)
    col0 = NW_BLOCK * (bx + block_width - i)
    for ty in range(NW_BLOCK):
        ref[ty, tx] = reference[row0 + ty + 1, col0 + tx + 1]
    cuda.syncthreads()
    if tx == 0:
        temp[0, 0] = matrix[row0, col0]
    temp[tx + 1, 0] = matrix[row0 + tx + 1, col0]
    cuda.syncthreads()
    temp[0, tx + 1] = matrix[row0, col0 + tx + 1]
    cuda.syncthreads()
    for m in range(NW_BLOCK):
        if tx <= m:
            x = tx + 1
            y = m - tx + 1
            temp[y, x] = max(max(temp[y - 1, x - 1] + ref[y - 1, x - 1],
                                 temp[y, x - 1] - penalty), temp[y - 1, x] - penalty)
        cuda.syncthreads()
    for m in range(NW_BLOCK - 2, -1, -1):
        if tx <= m:
            x = tx + NW_BLOCK - m
            y = NW_BLOCK - tx
            temp[y, x] = max(max(temp[y - 1, x - 1] + ref[y - 1, x - 1],
                                 temp[y, x - 1] - penalty), temp[y - 1, x] - penalty)
        cuda.syncthreads()
    for ty in range(NW_BLOCK):
        matrix[row0 + ty + 1, col0 + tx + 1] = temp[ty + 1, tx + 1]


# -- pathfinder -----------------------------------------------------------------------------

def pathfinder(iteration, wall, src, dst, start_step, border):
    """`iteration` rows of the minimum-cost path: dst[x] = min of src's three neighbours + wall."""
    prev = cuda.shared.array(PF_BLOCK, int32)
    result = cuda.shared.array(PF_BLOCK, int32)
    cols = wall.shape[1]
    tx = cuda.threadIdx.x
    small_block_cols = PF_BLOCK - iteration * 2
    blk_x = small_block_cols * cuda.blockIdx.x - border
    blk_xmax = blk_x + PF_BLOCK - 1
    xidx = blk_x + tx
    valid_xmin = -blk_x if blk_x < 0 else 0
    valid_xmax = PF_BLOCK - 1 - (blk_xmax - cols + 1) if blk_xmax > cols - 1 else PF_BLOCK - 1
    w = max(tx - 1, valid_xmin)
    e = min(tx + 1, valid_xmax)
    is_valid = tx >= valid_xmin and tx <= valid_xmax
    if xidx >= 0 and xidx <= cols - 1:
        prev[tx] = src[xidx]
    cuda.syncthreads()
    computed = False
    for i in range(iteration):
        computed = False
        if tx >= i + 1 and tx <= PF_BLOCK - i - 2 and is_valid:
            computed = True
            shortest = min(min(prev[w], prev[tx]), prev[e])
            result[tx] = shortest + wall[start_step + i, xidx]
        cuda.syncthreads()
        if i == iteration - 1:
            break
        if computed:
            prev[tx] = result[tx]
        cuda.syncthreads()
    if computed:
        dst[xidx] = result[tx]


# -- lud ------------------------------------------------------------------------------------

def lud_diagonal(m, offset):
    """LU of the diagonal tile at (offset, offset), in shared memory, one thread per column."""
    shadow = cuda.shared.array((LUD_BLOCK, LUD_BLOCK), float32)
    tx = cuda.threadIdx.x
    for i in range(LUD_BLOCK):
        shadow[i, tx] = m[offset + i, offset + tx]
    cuda.syncthreads()
    for i in range(LUD_BLOCK - 1):
        if tx > i:
            for j in range(i):
                shadow[tx, i] -= shadow[tx, j] * shadow[j, i]
            shadow[tx, i] /= shadow[i, i]
        cuda.syncthreads()
        if tx > i:
            for j in range(i + 1):
                shadow[i + 1, tx] -= shadow[i + 1, j] * shadow[j, tx]
        cuda.syncthreads()
    for i in range(1, LUD_BLOCK):           # the first row is unchanged
        m[offset + i, offset + tx] = shadow[i, tx]


def lud_perimeter(m, offset):
    """The tiles right of and below the diagonal tile: 2 * BLOCK threads, one per column."""
    dia = cuda.shared.array((LUD_BLOCK, LUD_BLOCK), float32)
    peri_row = cuda.shared.array((LUD_BLOCK, LUD_BLOCK), float32)
    peri_col = cuda.shared.array((LUD_BLOCK, LUD_BLOCK), float32)
    tx = cuda.threadIdx.x
    far = offset + (cuda.blockIdx.x + 1) * LUD_BLOCK
    if tx < LUD_BLOCK:
        idx = tx
        for i in range(LUD_BLOCK // 2):
            dia[i, idx] = m[offset + i, offset + idx]
        for i in range(LUD_BLOCK):
            peri_row[i, idx] = m[offset + i, far + idx]
    else:
        idx = tx - LUD_BLOCK
        for i in range(LUD_BLOCK // 2, LUD_BLOCK):
            dia[i, idx] = m[offset + i, offset + idx]
        for i in range(LUD_BLOCK):
            peri_col[i, idx] = m[far + i, offset + idx]
    cuda.syncthreads()
    if tx < LUD_BLOCK:
        idx = tx
        for i in range(1, LUD_BLOCK):
            for j in range(i):
                peri_row[i, idx] -= dia[i, j] * peri_row[j, idx]
    else:
        idx = tx - LUD_BLOCK
        for i in range(LUD_BLOCK):
            for j in range(i):
                peri_col[idx, i] -= peri_col[idx, j] * dia[j, i]
            peri_col[idx, i] /= dia[i, i]
    cuda.syncthreads()
    if tx < LUD_BLOCK:
        idx = tx
        for i in range(1, LUD_BLOCK):
            m[offset + i, far + idx] = peri_row[i, idx]
    else:
        idx = tx - LUD_BLOCK
        for i in range(LUD_BLOCK):
            m[far + i, offset + idx] = peri_col[i, idx]


def lud_internal(m, offset):
    """The trailing tiles: m -= (column panel) @ (row panel), one element per thread."""
    peri_row = cuda.shared.array((LUD_BLOCK, LUD_BLOCK), float32)
    peri_col = cuda.shared.array((LUD_BLOCK, LUD_BLOCK), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    global_row = offset + (cuda.blockIdx.y + 1) * LUD_BLOCK
    global_col = offset + (cuda.blockIdx.x + 1) * LUD_BLOCK
    peri_row[ty, tx] = m[offset + ty, global_col + tx]
    peri_col[ty, tx] = m[global_row + ty, offset + tx]
    cuda.syncthreads()
    acc = float32(0.0)
    for i in range(LUD_BLOCK):
        acc += peri_col[ty, i] * peri_row[i, tx]
    m[global_row + ty, global_col + tx] -= acc


# -- backprop -------------------------------------------------------------------------------

def bpnn_layerforward(input_units, weights, partial_sum):
    """Per block of HEIGHT input units: the weighted sums for each hidden unit, a shared tree."""
    input_node = cuda.shared.array(BP_HEIGHT, float32)
    weight_matrix = cuda.shared.array((BP_HEIGHT, BP_WIDTH), float32)
    by = cuda.blockIdx.x
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = BP_HEIGHT * by + ty + 1           # row 0 and column 0 are the bias
    col = tx + 1
    if tx == 0:
        input_node[ty] = input_units[row]
    cuda.syncthreads()
    weight_matrix[ty, tx] = weights[row, col]
    cuda.syncthreads()
    weight_matrix[ty, tx] = weight_matrix[ty, tx] * input_node[ty]
    cuda.syncthreads()
    for i in range(1, BP_LOG2_HEIGHT + 1):
        power_two = 1 << i
        if ty % power_two == 0:
            weight_matrix[ty, tx] = weight_matrix[ty, tx] + weight_matrix[ty + power_two // 2, tx]
        cuda.syncthreads()
    if tx == 0:
        partial_sum[by, ty] = weight_matrix[tx, ty]


def bpnn_adjust_weights(delta, ly, w, oldw):
    """w += ETA * delta * ly + MOMENTUM * oldw (and the bias row), remembering the change."""
    by = cuda.blockIdx.x
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = BP_HEIGHT * by + ty + 1
    col = tx + 1
    w[row, col] += BP_ETA * delta[col] * ly[row] + BP_MOMENTUM * oldw[row, col]
    oldw[row, col] = BP_ETA * delta[col] * ly[row] + BP_MOMENTUM * oldw[row, col]
    cuda.syncthreads()
    if ty == 0 and by == 0:
        w[0, col] += BP_ETA * delta[col] + BP_MOMENTUM * oldw[0, col]
        oldw[0, col] = BP_ETA * delta[col] + BP_MOMENTUM * oldw[0, col]
