//go:build goexperiment.simd

#include "textflag.h"

// Constants of vecmath.go's exp and erf, each repeated in eight lanes so
// instructions can take them straight from memory.
DATA vconst<>+0(SB)/4, $0x3fb8aa3b
DATA vconst<>+4(SB)/4, $0x3fb8aa3b
DATA vconst<>+8(SB)/4, $0x3fb8aa3b
DATA vconst<>+12(SB)/4, $0x3fb8aa3b
DATA vconst<>+16(SB)/4, $0x3fb8aa3b
DATA vconst<>+20(SB)/4, $0x3fb8aa3b
DATA vconst<>+24(SB)/4, $0x3fb8aa3b
DATA vconst<>+28(SB)/4, $0x3fb8aa3b
DATA vconst<>+32(SB)/4, $0x3f318000
DATA vconst<>+36(SB)/4, $0x3f318000
DATA vconst<>+40(SB)/4, $0x3f318000
DATA vconst<>+44(SB)/4, $0x3f318000
DATA vconst<>+48(SB)/4, $0x3f318000
DATA vconst<>+52(SB)/4, $0x3f318000
DATA vconst<>+56(SB)/4, $0x3f318000
DATA vconst<>+60(SB)/4, $0x3f318000
DATA vconst<>+64(SB)/4, $0xb95e8083
DATA vconst<>+68(SB)/4, $0xb95e8083
DATA vconst<>+72(SB)/4, $0xb95e8083
DATA vconst<>+76(SB)/4, $0xb95e8083
DATA vconst<>+80(SB)/4, $0xb95e8083
DATA vconst<>+84(SB)/4, $0xb95e8083
DATA vconst<>+88(SB)/4, $0xb95e8083
DATA vconst<>+92(SB)/4, $0xb95e8083
DATA vconst<>+96(SB)/4, $0x39506967
DATA vconst<>+100(SB)/4, $0x39506967
DATA vconst<>+104(SB)/4, $0x39506967
DATA vconst<>+108(SB)/4, $0x39506967
DATA vconst<>+112(SB)/4, $0x39506967
DATA vconst<>+116(SB)/4, $0x39506967
DATA vconst<>+120(SB)/4, $0x39506967
DATA vconst<>+124(SB)/4, $0x39506967
DATA vconst<>+128(SB)/4, $0x3ab743ce
DATA vconst<>+132(SB)/4, $0x3ab743ce
DATA vconst<>+136(SB)/4, $0x3ab743ce
DATA vconst<>+140(SB)/4, $0x3ab743ce
DATA vconst<>+144(SB)/4, $0x3ab743ce
DATA vconst<>+148(SB)/4, $0x3ab743ce
DATA vconst<>+152(SB)/4, $0x3ab743ce
DATA vconst<>+156(SB)/4, $0x3ab743ce
DATA vconst<>+160(SB)/4, $0x3c088908
DATA vconst<>+164(SB)/4, $0x3c088908
DATA vconst<>+168(SB)/4, $0x3c088908
DATA vconst<>+172(SB)/4, $0x3c088908
DATA vconst<>+176(SB)/4, $0x3c088908
DATA vconst<>+180(SB)/4, $0x3c088908
DATA vconst<>+184(SB)/4, $0x3c088908
DATA vconst<>+188(SB)/4, $0x3c088908
DATA vconst<>+192(SB)/4, $0x3d2aa9c1
DATA vconst<>+196(SB)/4, $0x3d2aa9c1
DATA vconst<>+200(SB)/4, $0x3d2aa9c1
DATA vconst<>+204(SB)/4, $0x3d2aa9c1
DATA vconst<>+208(SB)/4, $0x3d2aa9c1
DATA vconst<>+212(SB)/4, $0x3d2aa9c1
DATA vconst<>+216(SB)/4, $0x3d2aa9c1
DATA vconst<>+220(SB)/4, $0x3d2aa9c1
DATA vconst<>+224(SB)/4, $0x3e2aaaaa
DATA vconst<>+228(SB)/4, $0x3e2aaaaa
DATA vconst<>+232(SB)/4, $0x3e2aaaaa
DATA vconst<>+236(SB)/4, $0x3e2aaaaa
DATA vconst<>+240(SB)/4, $0x3e2aaaaa
DATA vconst<>+244(SB)/4, $0x3e2aaaaa
DATA vconst<>+248(SB)/4, $0x3e2aaaaa
DATA vconst<>+252(SB)/4, $0x3e2aaaaa
DATA vconst<>+256(SB)/4, $0x3f000000
DATA vconst<>+260(SB)/4, $0x3f000000
DATA vconst<>+264(SB)/4, $0x3f000000
DATA vconst<>+268(SB)/4, $0x3f000000
DATA vconst<>+272(SB)/4, $0x3f000000
DATA vconst<>+276(SB)/4, $0x3f000000
DATA vconst<>+280(SB)/4, $0x3f000000
DATA vconst<>+284(SB)/4, $0x3f000000
DATA vconst<>+288(SB)/4, $0x3f800000
DATA vconst<>+292(SB)/4, $0x3f800000
DATA vconst<>+296(SB)/4, $0x3f800000
DATA vconst<>+300(SB)/4, $0x3f800000
DATA vconst<>+304(SB)/4, $0x3f800000
DATA vconst<>+308(SB)/4, $0x3f800000
DATA vconst<>+312(SB)/4, $0x3f800000
DATA vconst<>+316(SB)/4, $0x3f800000
DATA vconst<>+320(SB)/4, $0xc2a00000
DATA vconst<>+324(SB)/4, $0xc2a00000
DATA vconst<>+328(SB)/4, $0xc2a00000
DATA vconst<>+332(SB)/4, $0xc2a00000
DATA vconst<>+336(SB)/4, $0xc2a00000
DATA vconst<>+340(SB)/4, $0xc2a00000
DATA vconst<>+344(SB)/4, $0xc2a00000
DATA vconst<>+348(SB)/4, $0xc2a00000
DATA vconst<>+352(SB)/4, $0x3f000000
DATA vconst<>+356(SB)/4, $0x3f000000
DATA vconst<>+360(SB)/4, $0x3f000000
DATA vconst<>+364(SB)/4, $0x3f000000
DATA vconst<>+368(SB)/4, $0x3f000000
DATA vconst<>+372(SB)/4, $0x3f000000
DATA vconst<>+376(SB)/4, $0x3f000000
DATA vconst<>+380(SB)/4, $0x3f000000
DATA vconst<>+384(SB)/4, $0x3f3504f3
DATA vconst<>+388(SB)/4, $0x3f3504f3
DATA vconst<>+392(SB)/4, $0x3f3504f3
DATA vconst<>+396(SB)/4, $0x3f3504f3
DATA vconst<>+400(SB)/4, $0x3f3504f3
DATA vconst<>+404(SB)/4, $0x3f3504f3
DATA vconst<>+408(SB)/4, $0x3f3504f3
DATA vconst<>+412(SB)/4, $0x3f3504f3
DATA vconst<>+416(SB)/4, $0xbfa1fc4e
DATA vconst<>+420(SB)/4, $0xbfa1fc4e
DATA vconst<>+424(SB)/4, $0xbfa1fc4e
DATA vconst<>+428(SB)/4, $0xbfa1fc4e
DATA vconst<>+432(SB)/4, $0xbfa1fc4e
DATA vconst<>+436(SB)/4, $0xbfa1fc4e
DATA vconst<>+440(SB)/4, $0xbfa1fc4e
DATA vconst<>+444(SB)/4, $0xbfa1fc4e
DATA vconst<>+448(SB)/4, $0x3f8000c7
DATA vconst<>+452(SB)/4, $0x3f8000c7
DATA vconst<>+456(SB)/4, $0x3f8000c7
DATA vconst<>+460(SB)/4, $0x3f8000c7
DATA vconst<>+464(SB)/4, $0x3f8000c7
DATA vconst<>+468(SB)/4, $0x3f8000c7
DATA vconst<>+472(SB)/4, $0x3f8000c7
DATA vconst<>+476(SB)/4, $0x3f8000c7
DATA vconst<>+480(SB)/4, $0x3ebf88fb
DATA vconst<>+484(SB)/4, $0x3ebf88fb
DATA vconst<>+488(SB)/4, $0x3ebf88fb
DATA vconst<>+492(SB)/4, $0x3ebf88fb
DATA vconst<>+496(SB)/4, $0x3ebf88fb
DATA vconst<>+500(SB)/4, $0x3ebf88fb
DATA vconst<>+504(SB)/4, $0x3ebf88fb
DATA vconst<>+508(SB)/4, $0x3ebf88fb
DATA vconst<>+512(SB)/4, $0x3dc636c9
DATA vconst<>+516(SB)/4, $0x3dc636c9
DATA vconst<>+520(SB)/4, $0x3dc636c9
DATA vconst<>+524(SB)/4, $0x3dc636c9
DATA vconst<>+528(SB)/4, $0x3dc636c9
DATA vconst<>+532(SB)/4, $0x3dc636c9
DATA vconst<>+536(SB)/4, $0x3dc636c9
DATA vconst<>+540(SB)/4, $0x3dc636c9
DATA vconst<>+544(SB)/4, $0xbe3ec24c
DATA vconst<>+548(SB)/4, $0xbe3ec24c
DATA vconst<>+552(SB)/4, $0xbe3ec24c
DATA vconst<>+556(SB)/4, $0xbe3ec24c
DATA vconst<>+560(SB)/4, $0xbe3ec24c
DATA vconst<>+564(SB)/4, $0xbe3ec24c
DATA vconst<>+568(SB)/4, $0xbe3ec24c
DATA vconst<>+572(SB)/4, $0xbe3ec24c
DATA vconst<>+576(SB)/4, $0x3e8ec7cc
DATA vconst<>+580(SB)/4, $0x3e8ec7cc
DATA vconst<>+584(SB)/4, $0x3e8ec7cc
DATA vconst<>+588(SB)/4, $0x3e8ec7cc
DATA vconst<>+592(SB)/4, $0x3e8ec7cc
DATA vconst<>+596(SB)/4, $0x3e8ec7cc
DATA vconst<>+600(SB)/4, $0x3e8ec7cc
DATA vconst<>+604(SB)/4, $0x3e8ec7cc
DATA vconst<>+608(SB)/4, $0xbf914e5d
DATA vconst<>+612(SB)/4, $0xbf914e5d
DATA vconst<>+616(SB)/4, $0xbf914e5d
DATA vconst<>+620(SB)/4, $0xbf914e5d
DATA vconst<>+624(SB)/4, $0xbf914e5d
DATA vconst<>+628(SB)/4, $0xbf914e5d
DATA vconst<>+632(SB)/4, $0xbf914e5d
DATA vconst<>+636(SB)/4, $0xbf914e5d
DATA vconst<>+640(SB)/4, $0x3fbe87b0
DATA vconst<>+644(SB)/4, $0x3fbe87b0
DATA vconst<>+648(SB)/4, $0x3fbe87b0
DATA vconst<>+652(SB)/4, $0x3fbe87b0
DATA vconst<>+656(SB)/4, $0x3fbe87b0
DATA vconst<>+660(SB)/4, $0x3fbe87b0
DATA vconst<>+664(SB)/4, $0x3fbe87b0
DATA vconst<>+668(SB)/4, $0x3fbe87b0
DATA vconst<>+672(SB)/4, $0xbf527892
DATA vconst<>+676(SB)/4, $0xbf527892
DATA vconst<>+680(SB)/4, $0xbf527892
DATA vconst<>+684(SB)/4, $0xbf527892
DATA vconst<>+688(SB)/4, $0xbf527892
DATA vconst<>+692(SB)/4, $0xbf527892
DATA vconst<>+696(SB)/4, $0xbf527892
DATA vconst<>+700(SB)/4, $0xbf527892
DATA vconst<>+704(SB)/4, $0x3e2ef945
DATA vconst<>+708(SB)/4, $0x3e2ef945
DATA vconst<>+712(SB)/4, $0x3e2ef945
DATA vconst<>+716(SB)/4, $0x3e2ef945
DATA vconst<>+720(SB)/4, $0x3e2ef945
DATA vconst<>+724(SB)/4, $0x3e2ef945
DATA vconst<>+728(SB)/4, $0x3e2ef945
DATA vconst<>+732(SB)/4, $0x3e2ef945
DATA vconst<>+736(SB)/4, $0x0000007f
DATA vconst<>+740(SB)/4, $0x0000007f
DATA vconst<>+744(SB)/4, $0x0000007f
DATA vconst<>+748(SB)/4, $0x0000007f
DATA vconst<>+752(SB)/4, $0x0000007f
DATA vconst<>+756(SB)/4, $0x0000007f
DATA vconst<>+760(SB)/4, $0x0000007f
DATA vconst<>+764(SB)/4, $0x0000007f
DATA vconst<>+768(SB)/4, $0x80000000
DATA vconst<>+772(SB)/4, $0x80000000
DATA vconst<>+776(SB)/4, $0x80000000
DATA vconst<>+780(SB)/4, $0x80000000
DATA vconst<>+784(SB)/4, $0x80000000
DATA vconst<>+788(SB)/4, $0x80000000
DATA vconst<>+792(SB)/4, $0x80000000
DATA vconst<>+796(SB)/4, $0x80000000
DATA vconst<>+800(SB)/4, $0x7fffffff
DATA vconst<>+804(SB)/4, $0x7fffffff
DATA vconst<>+808(SB)/4, $0x7fffffff
DATA vconst<>+812(SB)/4, $0x7fffffff
DATA vconst<>+816(SB)/4, $0x7fffffff
DATA vconst<>+820(SB)/4, $0x7fffffff
DATA vconst<>+824(SB)/4, $0x7fffffff
DATA vconst<>+828(SB)/4, $0x7fffffff
DATA vconst<>+832(SB)/4, $0xff800000
DATA vconst<>+836(SB)/4, $0xff800000
DATA vconst<>+840(SB)/4, $0xff800000
DATA vconst<>+844(SB)/4, $0xff800000
DATA vconst<>+848(SB)/4, $0xff800000
DATA vconst<>+852(SB)/4, $0xff800000
DATA vconst<>+856(SB)/4, $0xff800000
DATA vconst<>+860(SB)/4, $0xff800000
GLOBL vconst<>(SB), RODATA|NOPTR, $864

// tailmask<>+4·(8−t) holds t lanes of ones, then zeros.
DATA tailmask<>+0(SB)/4, $0xffffffff
DATA tailmask<>+4(SB)/4, $0xffffffff
DATA tailmask<>+8(SB)/4, $0xffffffff
DATA tailmask<>+12(SB)/4, $0xffffffff
DATA tailmask<>+16(SB)/4, $0xffffffff
DATA tailmask<>+20(SB)/4, $0xffffffff
DATA tailmask<>+24(SB)/4, $0xffffffff
DATA tailmask<>+28(SB)/4, $0xffffffff
DATA tailmask<>+32(SB)/4, $0x00000000
DATA tailmask<>+36(SB)/4, $0x00000000
DATA tailmask<>+40(SB)/4, $0x00000000
DATA tailmask<>+44(SB)/4, $0x00000000
DATA tailmask<>+48(SB)/4, $0x00000000
DATA tailmask<>+52(SB)/4, $0x00000000
DATA tailmask<>+56(SB)/4, $0x00000000
DATA tailmask<>+60(SB)/4, $0x00000000
GLOBL tailmask<>(SB), RODATA|NOPTR, $64

// func geluAsm(x *float32, bias *float32, n int)
//
// x[i] = gelu(x[i] + bias[i]) for n floats (a multiple of 8), exact GELU
// through vecmath.go's erfc and exp polynomials.
TEXT ·geluAsm(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ bias+8(FP), BX
	MOVQ n+16(FP), CX
	VMOVUPS vconst<>+288(SB), Y14
	VMOVUPS vconst<>+352(SB), Y15
	SHRQ $3, CX
	JEQ geludone
geluloop:
	VMOVUPS (SI), Y0
	VADDPS (BX), Y0, Y0              // v
	VMULPS vconst<>+384(SB), Y0, Y1      // z
	VANDPS vconst<>+768(SB), Y1, Y2      // sign of z
	VANDPS vconst<>+800(SB), Y1, Y1       // |z|
	VMOVAPS Y14, Y3
	VFMADD231PS Y15, Y1, Y3          // 1 + |z|/2
	VDIVPS Y3, Y14, Y3               // t
	VMOVUPS vconst<>+704(SB), Y4
	VFMADD213PS vconst<>+672(SB), Y3, Y4
	VFMADD213PS vconst<>+640(SB), Y3, Y4
	VFMADD213PS vconst<>+608(SB), Y3, Y4
	VFMADD213PS vconst<>+576(SB), Y3, Y4
	VFMADD213PS vconst<>+544(SB), Y3, Y4
	VFMADD213PS vconst<>+512(SB), Y3, Y4
	VFMADD213PS vconst<>+480(SB), Y3, Y4
	VFMADD213PS vconst<>+448(SB), Y3, Y4
	VFMADD213PS vconst<>+416(SB), Y3, Y4       // poly(t)
	VFNMADD231PS Y1, Y1, Y4          // y = poly(t) − z²
	VMAXPS vconst<>+320(SB), Y4, Y4
	VMULPS vconst<>+0(SB), Y4, Y5
	VROUNDPS $0, Y5, Y5              // n
	VFNMADD231PS vconst<>+32(SB), Y5, Y4
	VFNMADD231PS vconst<>+64(SB), Y5, Y4   // r
	VMOVUPS vconst<>+96(SB), Y6
	VFMADD213PS vconst<>+128(SB), Y4, Y6
	VFMADD213PS vconst<>+160(SB), Y4, Y6
	VFMADD213PS vconst<>+192(SB), Y4, Y6
	VFMADD213PS vconst<>+224(SB), Y4, Y6
	VFMADD213PS vconst<>+256(SB), Y4, Y6
	VMULPS Y4, Y4, Y7
	VMULPS Y7, Y6, Y6
	VADDPS Y4, Y6, Y6
	VADDPS Y14, Y6, Y6
	VCVTTPS2DQ Y5, Y5
	VPADDD vconst<>+736(SB), Y5, Y5
	VPSLLD $23, Y5, Y5
	VMULPS Y5, Y6, Y6                // exp(y)
	VMULPS Y3, Y6, Y6                // erfc(|z|)
	VSUBPS Y6, Y14, Y6               // erf(|z|)
	VORPS Y2, Y6, Y6                 // erf(z)
	VADDPS Y14, Y6, Y6
	VMULPS Y15, Y0, Y0
	VMULPS Y6, Y0, Y0
	VMOVUPS Y0, (SI)
	ADDQ $32, SI
	ADDQ $32, BX
	DECQ CX
	JNE geluloop
geludone:
	VZEROUPPER
	RET


// func softmaxRowAsm(v *float32, n int, scale float32)
//
// Replaces the n ≥ 1 scores in v by exp(scale·(x − max)) / sum, the exps
// as expShiftedAsm computes them (Y0–Y8 hold max, scale and exp's constants); a row's last n mod 8 floats go through
// masked loads and stores.
TEXT ·softmaxRowAsm(SB), NOSPLIT, $0-20
	MOVQ v+0(FP), SI
	MOVQ n+8(FP), DX
	VBROADCASTSS scale+16(FP), Y1
	MOVQ DX, AX
	ANDQ $7, AX                  // tail lanes
	SHRQ $3, DX                  // full vectors
	LEAQ tailmask<>(SB), BX
	MOVQ $8, R8
	SUBQ AX, R8
	VMOVUPS (BX)(R8*4), Y15      // tail mask (all zero when no tail)
	MOVQ DX, R9
	SHLQ $5, R9                  // byte offset of the tail
	VMOVUPS vconst<>+832(SB), Y14

	// Pass 1: the row's maximum.
	VMOVAPS Y14, Y0
	MOVQ SI, DI
	MOVQ DX, CX
	TESTQ CX, CX
	JEQ smaxtail
smaxloop:
	VMAXPS (DI), Y0, Y0
	ADDQ $32, DI
	DECQ CX
	JNE smaxloop
smaxtail:
	VMASKMOVPS (SI)(R9*1), Y15, Y2
	VANDNPS Y14, Y15, Y3         // −inf where the mask is off
	VORPS Y3, Y2, Y2
	VMAXPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X2
	VMAXPS X2, X0, X0
	VPERMILPS $0x4E, X0, X2
	VMAXPS X2, X0, X0
	VPERMILPS $0xB1, X0, X2
	VMAXPS X2, X0, X0
	VBROADCASTSS X0, Y0          // max

	// Pass 2: exps and their sum.
	VMOVUPS vconst<>+0(SB), Y2
	VMOVUPS vconst<>+32(SB), Y3
	VMOVUPS vconst<>+64(SB), Y4
	VMOVUPS vconst<>+96(SB), Y5
	VMOVUPS vconst<>+288(SB), Y6
	VMOVUPS vconst<>+320(SB), Y7
	VMOVUPS vconst<>+736(SB), Y8
	VXORPS Y9, Y9, Y9
	MOVQ SI, DI
	MOVQ DX, CX
	TESTQ CX, CX
	JEQ sexptail
sexploop:
	VMOVUPS (DI), Y10
	VSUBPS Y0, Y10, Y10
	VMULPS Y1, Y10, Y10
	VMAXPS Y7, Y10, Y10
	VMULPS Y2, Y10, Y11
	VROUNDPS $0, Y11, Y11
	VFNMADD231PS Y3, Y11, Y10
	VFNMADD231PS Y4, Y11, Y10
	VMOVAPS Y5, Y12
	VFMADD213PS vconst<>+128(SB), Y10, Y12
	VFMADD213PS vconst<>+160(SB), Y10, Y12
	VFMADD213PS vconst<>+192(SB), Y10, Y12
	VFMADD213PS vconst<>+224(SB), Y10, Y12
	VFMADD213PS vconst<>+256(SB), Y10, Y12
	VMULPS Y10, Y10, Y13
	VMULPS Y13, Y12, Y12
	VADDPS Y10, Y12, Y12
	VADDPS Y6, Y12, Y12
	VCVTTPS2DQ Y11, Y11
	VPADDD Y8, Y11, Y11
	VPSLLD $23, Y11, Y11
	VMULPS Y11, Y12, Y12
	VMOVUPS Y12, (DI)
	VADDPS Y12, Y9, Y9
	ADDQ $32, DI
	DECQ CX
	JNE sexploop
sexptail:
	TESTQ AX, AX
	JEQ ssum
	VMASKMOVPS (SI)(R9*1), Y15, Y10
	VSUBPS Y0, Y10, Y10
	VMULPS Y1, Y10, Y10
	VMAXPS Y7, Y10, Y10
	VMULPS Y2, Y10, Y11
	VROUNDPS $0, Y11, Y11
	VFNMADD231PS Y3, Y11, Y10
	VFNMADD231PS Y4, Y11, Y10
	VMOVAPS Y5, Y12
	VFMADD213PS vconst<>+128(SB), Y10, Y12
	VFMADD213PS vconst<>+160(SB), Y10, Y12
	VFMADD213PS vconst<>+192(SB), Y10, Y12
	VFMADD213PS vconst<>+224(SB), Y10, Y12
	VFMADD213PS vconst<>+256(SB), Y10, Y12
	VMULPS Y10, Y10, Y13
	VMULPS Y13, Y12, Y12
	VADDPS Y10, Y12, Y12
	VADDPS Y6, Y12, Y12
	VCVTTPS2DQ Y11, Y11
	VPADDD Y8, Y11, Y11
	VPSLLD $23, Y11, Y11
	VMULPS Y11, Y12, Y12
	VANDPS Y15, Y12, Y12
	VMASKMOVPS Y12, Y15, (SI)(R9*1)
	VADDPS Y12, Y9, Y9
ssum:
	VEXTRACTF128 $1, Y9, X2
	VADDPS X2, X9, X9
	VPERMILPS $0x4E, X9, X2
	VADDPS X2, X9, X9
	VPERMILPS $0xB1, X9, X2
	VADDPS X2, X9, X9
	VDIVSS X9, X6, X9            // 1/sum (X6 holds ones)
	VBROADCASTSS X9, Y9

	// Pass 3: normalise.
	MOVQ SI, DI
	MOVQ DX, CX
	TESTQ CX, CX
	JEQ sscaletail
sscaleloop:
	VMULPS (DI), Y9, Y10
	VMOVUPS Y10, (DI)
	ADDQ $32, DI
	DECQ CX
	JNE sscaleloop
sscaletail:
	TESTQ AX, AX
	JEQ sdone
	VMASKMOVPS (SI)(R9*1), Y15, Y10
	VMULPS Y10, Y9, Y10
	VMASKMOVPS Y10, Y15, (SI)(R9*1)
sdone:
	VZEROUPPER
	RET
