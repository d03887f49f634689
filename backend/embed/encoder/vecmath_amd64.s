//go:build goexperiment.simd

#include "textflag.h"

// Constants of softmax's 2^f polynomial and GELU's erf rational function
// (vecmath.go's erfNum, erfDen), each repeated in eight lanes so that
// instructions can take them straight from memory.
#define CONST8(off, bits) \
	DATA vconst<>+off(SB)/4, $bits; DATA vconst<>+off+4(SB)/4, $bits; \
	DATA vconst<>+off+8(SB)/4, $bits; DATA vconst<>+off+12(SB)/4, $bits; \
	DATA vconst<>+off+16(SB)/4, $bits; DATA vconst<>+off+20(SB)/4, $bits; \
	DATA vconst<>+off+24(SB)/4, $bits; DATA vconst<>+off+28(SB)/4, $bits

CONST8(0, 0x3fb8aa3b)   // log2(e)
CONST8(32, 0x3f800000)  // 2^f polynomial c0 … c7: ln2^i / i!
CONST8(64, 0x3f317218)
CONST8(96, 0x3e75fdf0)
CONST8(128, 0x3d635847)
CONST8(160, 0x3c1d955b)
CONST8(192, 0x3aaec3ff)
CONST8(224, 0x39218489)
CONST8(256, 0x377fe5fe)
CONST8(288, 0x3f800000) // 1
CONST8(320, 0xc2e60000) // exp2Min (−115: 2^−115 ≈ e^−80)
CONST8(352, 0x3f000000) // 0.5
CONST8(384, 0x3f3504f3) // 1/√2
CONST8(416, 0xaf95df0b) // erf numerator a13 … a1 (erfNum)
CONST8(448, 0x32edffee)
CONST8(480, 0xb60cff51)
CONST8(512, 0xb86ec2d2)
CONST8(544, 0xba40ac63)
CONST8(576, 0xbb41a1f6)
CONST8(608, 0xbc83dbd4)
CONST8(640, 0xb77460cd) // erf denominator b8 … b0 (erfDen)
CONST8(672, 0xb95fbd29)
CONST8(704, 0xbadc924e)
CONST8(736, 0xbbf19bf8)
CONST8(768, 0xbc69b6a7)
CONST8(800, 0x40800000) // erfClamp (4)
CONST8(832, 0xc0800000) // −erfClamp
CONST8(864, 0x4b400000) // 1.5·2^23, to round by adding
CONST8(896, 0xff800000) // −inf
GLOBL vconst<>(SB), RODATA|NOPTR, $928

#define LOG2E vconst<>+0(SB)
#define E0 vconst<>+32(SB)
#define E1 vconst<>+64(SB)
#define E2 vconst<>+96(SB)
#define E3 vconst<>+128(SB)
#define E4 vconst<>+160(SB)
#define E5 vconst<>+192(SB)
#define E6 vconst<>+224(SB)
#define E7 vconst<>+256(SB)
#define ONE vconst<>+288(SB)
#define EXP2MIN vconst<>+320(SB)
#define HALF vconst<>+352(SB)
#define INVSQRT2 vconst<>+384(SB)
#define A13 vconst<>+416(SB)
#define A11 vconst<>+448(SB)
#define A9 vconst<>+480(SB)
#define A7 vconst<>+512(SB)
#define A5 vconst<>+544(SB)
#define A3 vconst<>+576(SB)
#define A1 vconst<>+608(SB)
#define B8 vconst<>+640(SB)
#define B6 vconst<>+672(SB)
#define B4 vconst<>+704(SB)
#define B2 vconst<>+736(SB)
#define B0 vconst<>+768(SB)
#define ERFCLAMP vconst<>+800(SB)
#define NERFCLAMP vconst<>+832(SB)
#define MAGIC vconst<>+864(SB)
#define NEGINF vconst<>+896(SB)

// tailmask<>+4·(8−t) holds t lanes of ones, then zeros.
DATA tailmask<>+0(SB)/4, $0xffffffff
DATA tailmask<>+4(SB)/4, $0xffffffff
DATA tailmask<>+8(SB)/4, $0xffffffff
DATA tailmask<>+12(SB)/4, $0xffffffff
DATA tailmask<>+16(SB)/4, $0xffffffff
DATA tailmask<>+20(SB)/4, $0xffffffff
DATA tailmask<>+24(SB)/4, $0xffffffff
DATA tailmask<>+28(SB)/4, $0xffffffff
DATA tailmask<>+32(SB)/4, $0
DATA tailmask<>+36(SB)/4, $0
DATA tailmask<>+40(SB)/4, $0
DATA tailmask<>+44(SB)/4, $0
DATA tailmask<>+48(SB)/4, $0
DATA tailmask<>+52(SB)/4, $0
DATA tailmask<>+56(SB)/4, $0
DATA tailmask<>+60(SB)/4, $0
GLOBL tailmask<>(SB), RODATA|NOPTR, $64

// SOFTEXP sets u = 2^t, t = max(x·Y1 + Y0, exp2Min): with Y1 = scale·log2 e
// and Y0 = −scale·log2 e·max, exp(scale·(x − max)). n = round(t) by adding
// 1.5·2^23, which leaves n in the float's low bits, whence shifting it into
// the exponent field and adding 1.0's bits make 2^n; f = t − n is exact,
// and 2^f (|f| ≤ ½) is a degree-7 Taylor polynomial (remainder under 1e-8)
// by Estrin's scheme. The exps are bound by this chain's latency, not by
// the FP pipes, so it is kept short: the scores' scaling is folded into t
// and there is no ln 2 range reduction (BenchmarkExpRows: 0.54–0.60 ns an
// element against 0.61–0.68 for Cephes' exp(r), r = x − n·ln 2 in two
// parts). The rounding of Y0, the same for a whole row, cancels in the
// division by the row's sum.
//
// exp2Min is −115: 2^−115 ≈ e^−80 stands in for anything smaller, far
// below a float32's precision next to a softmax row's largest term, and it
// keeps results clear of subnormal floats, which cost the CPU a hundred
// cycles each (softmax over random-weight scores ran 20× slower).
// x, n, q, w and v are clobbered.
#define SOFTEXP(x, n, q, u, w, v) \
	VFMADD213PS Y0, Y1, x; \
	VMAXPS      EXP2MIN, x, x; \
	VADDPS      MAGIC, x, n; \
	VSUBPS      MAGIC, n, q; \
	VSUBPS      q, x, x; \
	VPSLLD      $23, n, n; \
	VPADDD      ONE, n, n; \
	VMULPS      x, x, q; \
	VMOVUPS     E1, u; \
	VFMADD213PS E0, x, u; \
	VMOVUPS     E3, w; \
	VFMADD213PS E2, x, w; \
	VFMADD231PS w, q, u; \
	VMOVUPS     E7, w; \
	VFMADD213PS E6, x, w; \
	VMOVUPS     E5, v; \
	VFMADD213PS E4, x, v; \
	VFMADD213PS v, q, w; \
	VMULPS      q, q, q; \
	VFMADD231PS w, q, u; \
	VMULPS      n, u, u

// GELU sets v = gelu(v) = v·(1 + erf(v/√2))/2, erf(z) = z·num(z²)/den(z²)
// with z clamped to ±erfClamp (vecmath.go's erfNum, erfDen); z, z2, p and
// q are clobbered.
#define GELU(v, z, z2, p, q) \
	VMULPS      INVSQRT2, v, z; \
	VMINPS      ERFCLAMP, z, z; \
	VMAXPS      NERFCLAMP, z, z; \
	VMULPS      z, z, z2; \
	VMOVUPS     A13, p; \
	VFMADD213PS A11, z2, p; \
	VFMADD213PS A9, z2, p; \
	VFMADD213PS A7, z2, p; \
	VFMADD213PS A5, z2, p; \
	VFMADD213PS A3, z2, p; \
	VFMADD213PS A1, z2, p; \
	VMOVUPS     B8, q; \
	VFMADD213PS B6, z2, q; \
	VFMADD213PS B4, z2, q; \
	VFMADD213PS B2, z2, q; \
	VFMADD213PS B0, z2, q; \
	VMULPS      z, p, p; \
	VDIVPS      q, p, p; \
	VMULPS      HALF, v, v; \
	VFMADD231PS p, v, v

// func geluRowsAsm(x *float32, ld int, bias *float32, n int, rows int)
//
// x[r·ld+i] = gelu(x[r·ld+i] + bias[i]) for i < n (a multiple of 8) on
// rows ≥ 1 rows, sixteen floats at a time in two independent chains
// (BenchmarkGELU: 0.46–0.47 ns an element, against 0.48–0.55 one vector at
// a time).
TEXT ·geluRowsAsm(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), DI
	MOVQ ld+8(FP), R8
	MOVQ bias+16(FP), R9
	MOVQ n+24(FP), R10
	MOVQ rows+32(FP), R11
	SHLQ $2, R8
	SHRQ $3, R10
	JEQ  geludone

gelurow:
	MOVQ DI, SI
	MOVQ R9, BX
	MOVQ R10, CX
	CMPQ CX, $2
	JLT  gelutail

gelupair:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y5
	VADDPS  (BX), Y0, Y0
	VADDPS  32(BX), Y5, Y5
	GELU(Y0, Y1, Y2, Y3, Y4)
	GELU(Y5, Y6, Y7, Y8, Y9)
	VMOVUPS Y0, (SI)
	VMOVUPS Y5, 32(SI)
	ADDQ    $64, SI
	ADDQ    $64, BX
	SUBQ    $2, CX
	CMPQ    CX, $2
	JGE     gelupair
	TESTQ   CX, CX
	JEQ     gelunext

gelutail:
	VMOVUPS (SI), Y0
	VADDPS  (BX), Y0, Y0
	GELU(Y0, Y1, Y2, Y3, Y4)
	VMOVUPS Y0, (SI)

gelunext:
	ADDQ R8, DI
	DECQ R11
	JNE  gelurow

geludone:
	VZEROUPPER
	RET

// func expRowAsm(v *float32, n int, scale float32) (invSum float32)
//
// Replaces the n ≥ 1 scores in v by exp(scale·(x − max)) and returns one
// over their sum, which the caller applies to the attention product's
// rows (32 floats) instead of to the scores (a row of them). A row's last
// n mod 8 floats go through masked loads and stores. The exps run two
// vectors at a time in independent chains.
TEXT ·expRowAsm(SB), NOSPLIT, $0-28
	MOVQ         v+0(FP), SI
	MOVQ         n+8(FP), DX
	VBROADCASTSS scale+16(FP), Y1
	VMULPS       LOG2E, Y1, Y1 // scale·log2 e
	MOVQ         DX, AX
	ANDQ         $7, AX // tail lanes
	SHRQ         $3, DX // full vectors
	LEAQ         tailmask<>(SB), BX
	MOVQ         $8, R8
	SUBQ         AX, R8
	VMOVUPS      (BX)(R8*4), Y15 // tail mask (all zero when no tail)
	MOVQ         DX, R9
	SHLQ         $5, R9 // byte offset of the tail
	VMOVUPS      NEGINF, Y14

	// Pass 1: the row's maximum.
	VMOVAPS Y14, Y0
	MOVQ    SI, DI
	MOVQ    DX, CX
	TESTQ   CX, CX
	JEQ     smaxtail

smaxloop:
	VMAXPS (DI), Y0, Y0
	ADDQ   $32, DI
	DECQ   CX
	JNE    smaxloop

smaxtail:
	VMASKMOVPS   (SI)(R9*1), Y15, Y2
	VANDNPS      Y14, Y15, Y3 // −inf where the mask is off
	VORPS        Y3, Y2, Y2
	VMAXPS       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X2
	VMAXPS       X2, X0, X0
	VPERMILPS    $0x4E, X0, X2
	VMAXPS       X2, X0, X0
	VPERMILPS    $0xB1, X0, X2
	VMAXPS       X2, X0, X0
	VBROADCASTSS X0, Y0
	VMULPS       Y1, Y0, Y0
	VXORPS       Y3, Y3, Y3
	VSUBPS       Y0, Y3, Y0 // −scale·log2 e·max

	// Pass 2: exps and their sum (Y14, and Y8 for the second chain).
	VXORPS Y14, Y14, Y14
	VXORPS Y8, Y8, Y8
	MOVQ   SI, DI
	MOVQ   DX, CX
	CMPQ   CX, $2
	JLT    sexpone

sexppair:
	VMOVUPS (DI), Y10
	VMOVUPS 32(DI), Y2
	SOFTEXP(Y10, Y11, Y12, Y13, Y6, Y7)
	SOFTEXP(Y2, Y3, Y4, Y5, Y9, Y15)
	VMOVUPS Y13, (DI)
	VMOVUPS Y5, 32(DI)
	VADDPS  Y13, Y14, Y14
	VADDPS  Y5, Y8, Y8
	ADDQ    $64, DI
	SUBQ    $2, CX
	CMPQ    CX, $2
	JGE     sexppair

sexpone:
	TESTQ   CX, CX
	JEQ     sexptail
	VMOVUPS (DI), Y10
	SOFTEXP(Y10, Y11, Y12, Y13, Y6, Y7)
	VMOVUPS Y13, (DI)
	VADDPS  Y13, Y14, Y14

sexptail:
	TESTQ      AX, AX
	JEQ        ssum
	VMOVUPS    (BX)(R8*4), Y15 // the tail mask again (the pairs used Y15)
	VMASKMOVPS (SI)(R9*1), Y15, Y10
	SOFTEXP(Y10, Y11, Y12, Y13, Y6, Y7)
	VANDPS     Y15, Y13, Y13
	VMASKMOVPS Y13, Y15, (SI)(R9*1)
	VADDPS     Y13, Y14, Y14

ssum:
	VADDPS       Y8, Y14, Y9
	VEXTRACTF128 $1, Y9, X2
	VADDPS       X2, X9, X9
	VPERMILPS    $0x4E, X9, X2
	VADDPS       X2, X9, X9
	VPERMILPS    $0xB1, X9, X2
	VADDPS       X2, X9, X9
	VMOVSS       ONE, X6
	VDIVSS       X9, X6, X9 // 1/sum
	VMOVSS       X9, invSum+24(FP)
	VZEROUPPER
	RET

// HSUM sets the low float of x to the sum of y's eight lanes (t is
// clobbered; x and y may be the same register).
#define HSUM(y, x, t) \
	VEXTRACTF128 $1, y, t; \
	VADDPS       t, x, x; \
	VPERMILPS    $0x4E, x, t; \
	VADDPS       t, x, x; \
	VPERMILPS    $0xB1, x, t; \
	VADDPS       t, x, x

// func layerNormRowAsm(x, bias, gamma, beta *float32, n int, invN, eps float32)
//
// One row of layerNorm, n a multiple of 8: x += bias (bias may be nil),
// then x = (x − mean)·rstd·gamma + beta, with mean and variance over the
// row and rstd = 1/√(variance + eps). Sums run in two accumulators.
TEXT ·layerNormRowAsm(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ bias+8(FP), BX
	MOVQ gamma+16(FP), R8
	MOVQ beta+24(FP), R9
	MOVQ n+32(FP), DX
	SHRQ $3, DX
	JEQ  lndone

	// Pass 1: the bias, and the sum (Y0 + Y1).
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	MOVQ   SI, DI
	MOVQ   DX, CX
	TESTQ  BX, BX
	JEQ    lnsum

lnbias:
	VMOVUPS (DI), Y2
	VADDPS  (BX), Y2, Y2
	VMOVUPS Y2, (DI)
	VADDPS  Y2, Y0, Y0
	ADDQ    $32, DI
	ADDQ    $32, BX
	DECQ    CX
	JEQ     lnmean
	VMOVUPS (DI), Y2
	VADDPS  (BX), Y2, Y2
	VMOVUPS Y2, (DI)
	VADDPS  Y2, Y1, Y1
	ADDQ    $32, DI
	ADDQ    $32, BX
	DECQ    CX
	JNE     lnbias
	JMP     lnmean

lnsum:
	VADDPS (DI), Y0, Y0
	ADDQ   $32, DI
	DECQ   CX
	JEQ    lnmean
	VADDPS (DI), Y1, Y1
	ADDQ   $32, DI
	DECQ   CX
	JNE    lnsum

lnmean:
	VADDPS       Y1, Y0, Y0
	HSUM(Y0, X0, X2)
	VMULSS       invN+40(FP), X0, X0
	VBROADCASTSS X0, Y3 // mean

	// Pass 2: the sum of squared distances from the mean (Y0 + Y1).
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	MOVQ   SI, DI
	MOVQ   DX, CX

lnsq:
	VMOVUPS     (DI), Y2
	VSUBPS      Y3, Y2, Y2
	VFMADD231PS Y2, Y2, Y0
	ADDQ        $32, DI
	DECQ        CX
	JEQ         lnrstd
	VMOVUPS     (DI), Y2
	VSUBPS      Y3, Y2, Y2
	VFMADD231PS Y2, Y2, Y1
	ADDQ        $32, DI
	DECQ        CX
	JNE         lnsq

lnrstd:
	VADDPS       Y1, Y0, Y0
	HSUM(Y0, X0, X2)
	VMULSS       invN+40(FP), X0, X0
	VADDSS       eps+44(FP), X0, X0
	VSQRTSS      X0, X0, X0
	VMOVSS       ONE, X2
	VDIVSS       X0, X2, X0
	VBROADCASTSS X0, Y4 // rstd

	// Pass 3: normalise, scale and shift.
	MOVQ SI, DI
	MOVQ DX, CX

lnnorm:
	VMOVUPS     (DI), Y2
	VSUBPS      Y3, Y2, Y2
	VMULPS      Y4, Y2, Y2
	VMOVUPS     (R9), Y5
	VFMADD231PS (R8), Y2, Y5
	VMOVUPS     Y5, (DI)
	ADDQ        $32, DI
	ADDQ        $32, R8
	ADDQ        $32, R9
	DECQ        CX
	JNE         lnnorm

lndone:
	VZEROUPPER
	RET

// func scaleRowsAsm(x *float32, ld int, rows int, n int, f *float32)
//
// x[r·ld+i] *= f[r] for i < n (a multiple of 8) on rows ≥ 1 rows.
TEXT ·scaleRowsAsm(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), DI
	MOVQ ld+8(FP), R8
	MOVQ rows+16(FP), R9
	MOVQ n+24(FP), R10
	MOVQ f+32(FP), BX
	SHLQ $2, R8
	SHRQ $3, R10
	JEQ  scaledone

scalerow:
	VBROADCASTSS (BX), Y0
	MOVQ         DI, SI
	MOVQ         R10, CX

scalevec:
	VMULPS  (SI), Y0, Y1
	VMOVUPS Y1, (SI)
	ADDQ    $32, SI
	DECQ    CX
	JNE     scalevec
	ADDQ    R8, DI
	ADDQ    $4, BX
	DECQ    R9
	JNE     scalerow

scaledone:
	VZEROUPPER
	RET

// func addRowsAsm(x *float32, ld int, rows int, n int, v *float32)
//
// x[r·ld+i] += v[i] for i < n (a multiple of 8) on rows ≥ 1 rows.
TEXT ·addRowsAsm(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), DI
	MOVQ ld+8(FP), R8
	MOVQ rows+16(FP), R9
	MOVQ n+24(FP), R10
	MOVQ v+32(FP), R11
	SHLQ $2, R8
	SHRQ $3, R10
	JEQ  adddone

addrow:
	MOVQ DI, SI
	MOVQ R11, BX
	MOVQ R10, CX

addvec:
	VMOVUPS (SI), Y0
	VADDPS  (BX), Y0, Y0
	VMOVUPS Y0, (SI)
	ADDQ    $32, SI
	ADDQ    $32, BX
	DECQ    CX
	JNE     addvec
	ADDQ    R8, DI
	DECQ    R9
	JNE     addrow

adddone:
	VZEROUPPER
	RET
