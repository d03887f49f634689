//go:build goexperiment.simd

#include "textflag.h"

// Constants of vecmath.go's exp and erfc polynomials, each repeated in
// eight lanes so that instructions can take them straight from memory.
#define CONST8(off, bits) \
	DATA vconst<>+off(SB)/4, $bits; DATA vconst<>+off+4(SB)/4, $bits; \
	DATA vconst<>+off+8(SB)/4, $bits; DATA vconst<>+off+12(SB)/4, $bits; \
	DATA vconst<>+off+16(SB)/4, $bits; DATA vconst<>+off+20(SB)/4, $bits; \
	DATA vconst<>+off+24(SB)/4, $bits; DATA vconst<>+off+28(SB)/4, $bits

CONST8(0, 0x3fb8aa3b)   // log2(e)
CONST8(32, 0x3f318000)  // ln 2, high part (0.693359375)
CONST8(64, 0xb95e8083)  // ln 2, low part (−2.12194440e-4)
CONST8(96, 0x39506967)  // exp polynomial p0 … p5
CONST8(128, 0x3ab743ce)
CONST8(160, 0x3c088908)
CONST8(192, 0x3d2aa9c1)
CONST8(224, 0x3e2aaaaa)
CONST8(256, 0x3f000000)
CONST8(288, 0x3f800000) // 1
CONST8(320, 0xc2a00000) // expMin (−80)
CONST8(352, 0x3f000000) // 0.5
CONST8(384, 0x3f3504f3) // 1/√2
CONST8(416, 0xbfa1fc4e) // erfc polynomial c0 … c9 (erfcCoef)
CONST8(448, 0x3f8000c7)
CONST8(480, 0x3ebf88fb)
CONST8(512, 0x3dc636c9)
CONST8(544, 0xbe3ec24c)
CONST8(576, 0x3e8ec7cc)
CONST8(608, 0xbf914e5d)
CONST8(640, 0x3fbe87b0)
CONST8(672, 0xbf527892)
CONST8(704, 0x3e2ef945)
CONST8(736, 0x0000007f) // float32 exponent bias (int32)
CONST8(768, 0x80000000) // sign bit
CONST8(800, 0x7fffffff) // all but the sign bit
CONST8(832, 0xff800000) // −inf
GLOBL vconst<>(SB), RODATA|NOPTR, $864

#define LOG2E vconst<>+0(SB)
#define LN2HI vconst<>+32(SB)
#define LN2LO vconst<>+64(SB)
#define P0 vconst<>+96(SB)
#define P1 vconst<>+128(SB)
#define P2 vconst<>+160(SB)
#define P3 vconst<>+192(SB)
#define P4 vconst<>+224(SB)
#define P5 vconst<>+256(SB)
#define ONE vconst<>+288(SB)
#define EXPMIN vconst<>+320(SB)
#define HALF vconst<>+352(SB)
#define INVSQRT2 vconst<>+384(SB)
#define C0 vconst<>+416(SB)
#define C1 vconst<>+448(SB)
#define C2 vconst<>+480(SB)
#define C3 vconst<>+512(SB)
#define C4 vconst<>+544(SB)
#define C5 vconst<>+576(SB)
#define C6 vconst<>+608(SB)
#define C7 vconst<>+640(SB)
#define C8 vconst<>+672(SB)
#define C9 vconst<>+704(SB)
#define EXPBIAS vconst<>+736(SB)
#define SIGN vconst<>+768(SB)
#define ABS vconst<>+800(SB)
#define NEGINF vconst<>+832(SB)

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

// EXP sets q = exp(x) for x ≥ expMin, as vecmath.go's expScalar: n =
// round(x·log2 e), r = x − n·ln 2 (in two parts), 2^n · (1 + r + r²·p(r)).
// x, n, q and t are registers; x and t are clobbered.
#define EXP(x, n, q, t) \
	VMULPS       LOG2E, x, n; \
	VROUNDPS     $0, n, n; \
	VFNMADD231PS LN2HI, n, x; \
	VFNMADD231PS LN2LO, n, x; \
	VMOVUPS      P0, q; \
	VFMADD213PS  P1, x, q; \
	VFMADD213PS  P2, x, q; \
	VFMADD213PS  P3, x, q; \
	VFMADD213PS  P4, x, q; \
	VFMADD213PS  P5, x, q; \
	VMULPS       x, x, t; \
	VMULPS       t, q, q; \
	VADDPS       x, q, q; \
	VADDPS       ONE, q, q; \
	VCVTTPS2DQ   n, n; \
	VPADDD       EXPBIAS, n, n; \
	VPSLLD       $23, n, n; \
	VMULPS       n, q, q

// func geluAsm(x *float32, bias *float32, n int)
//
// x[i] = gelu(x[i] + bias[i]) for n floats (a multiple of 8): v·(1 +
// erf(v/√2))/2, erf through vecmath.go's erfc polynomial and EXP.
TEXT ·geluAsm(SB), NOSPLIT, $0-24
	MOVQ    x+0(FP), SI
	MOVQ    bias+8(FP), BX
	MOVQ    n+16(FP), CX
	VMOVUPS ONE, Y14
	VMOVUPS HALF, Y15
	SHRQ    $3, CX
	JEQ     geludone

geluloop:
	VMOVUPS      (SI), Y0
	VADDPS       (BX), Y0, Y0 // v
	VMULPS       INVSQRT2, Y0, Y1 // z
	VANDPS       SIGN, Y1, Y2 // z's sign
	VANDPS       ABS, Y1, Y1 // |z|
	VMOVAPS      Y14, Y3
	VFMADD231PS  Y15, Y1, Y3 // 1 + |z|/2
	VDIVPS       Y3, Y14, Y3 // t
	VMOVUPS      C9, Y4
	VFMADD213PS  C8, Y3, Y4
	VFMADD213PS  C7, Y3, Y4
	VFMADD213PS  C6, Y3, Y4
	VFMADD213PS  C5, Y3, Y4
	VFMADD213PS  C4, Y3, Y4
	VFMADD213PS  C3, Y3, Y4
	VFMADD213PS  C2, Y3, Y4
	VFMADD213PS  C1, Y3, Y4
	VFMADD213PS  C0, Y3, Y4 // poly(t)
	VFNMADD231PS Y1, Y1, Y4 // poly(t) − z²
	VMAXPS       EXPMIN, Y4, Y4
	EXP(Y4, Y5, Y6, Y7)
	VMULPS       Y3, Y6, Y6 // erfc(|z|) = t·exp(poly(t) − z²)
	VSUBPS       Y6, Y14, Y6 // erf(|z|)
	VORPS        Y2, Y6, Y6 // erf(z)
	VADDPS       Y14, Y6, Y6
	VMULPS       Y15, Y0, Y0
	VMULPS       Y6, Y0, Y0
	VMOVUPS      Y0, (SI)
	ADDQ         $32, SI
	ADDQ         $32, BX
	DECQ         CX
	JNE          geluloop

geludone:
	VZEROUPPER
	RET

// SOFTEXP sets Y12 = exp(max(scale·(Y10 − max), expMin)) for
// softmaxRowAsm (max in Y0, scale in Y1); clobbers Y10, Y11, Y13.
#define SOFTEXP \
	VSUBPS Y0, Y10, Y10; \
	VMULPS Y1, Y10, Y10; \
	VMAXPS EXPMIN, Y10, Y10; \
	EXP(Y10, Y11, Y12, Y13)

// func softmaxRowAsm(v *float32, n int, scale float32)
//
// Replaces the n ≥ 1 scores in v by exp(scale·(x − max)) / sum. A row's
// last n mod 8 floats go through masked loads and stores.
TEXT ·softmaxRowAsm(SB), NOSPLIT, $0-20
	MOVQ         v+0(FP), SI
	MOVQ         n+8(FP), DX
	VBROADCASTSS scale+16(FP), Y1
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
	VBROADCASTSS X0, Y0 // max

	// Pass 2: exps and their sum (Y9).
	VXORPS Y9, Y9, Y9
	MOVQ   SI, DI
	MOVQ   DX, CX
	TESTQ  CX, CX
	JEQ    sexptail

sexploop:
	VMOVUPS (DI), Y10
	SOFTEXP
	VMOVUPS Y12, (DI)
	VADDPS  Y12, Y9, Y9
	ADDQ    $32, DI
	DECQ    CX
	JNE     sexploop

sexptail:
	TESTQ      AX, AX
	JEQ        ssum
	VMASKMOVPS (SI)(R9*1), Y15, Y10
	SOFTEXP
	VANDPS     Y15, Y12, Y12
	VMASKMOVPS Y12, Y15, (SI)(R9*1)
	VADDPS     Y12, Y9, Y9

ssum:
	VEXTRACTF128 $1, Y9, X2
	VADDPS       X2, X9, X9
	VPERMILPS    $0x4E, X9, X2
	VADDPS       X2, X9, X9
	VPERMILPS    $0xB1, X9, X2
	VADDPS       X2, X9, X9
	VMOVUPS      ONE, Y6
	VDIVSS       X9, X6, X9 // 1/sum
	VBROADCASTSS X9, Y9

	// Pass 3: normalise.
	MOVQ  SI, DI
	MOVQ  DX, CX
	TESTQ CX, CX
	JEQ   sscaletail

sscaleloop:
	VMULPS  (DI), Y9, Y10
	VMOVUPS Y10, (DI)
	ADDQ    $32, DI
	DECQ    CX
	JNE     sscaleloop

sscaletail:
	TESTQ      AX, AX
	JEQ        sdone
	VMASKMOVPS (SI)(R9*1), Y15, Y10
	VMULPS     Y10, Y9, Y10
	VMASKMOVPS Y10, Y15, (SI)(R9*1)

sdone:
	VZEROUPPER
	RET
