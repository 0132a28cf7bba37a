# bcryptprimitives.dll for Wine 8.0, which has none: Go's runtime (1.24+)
# loads it from system32 before main and calls its ProcessPrng for random
# bytes. ProcessPrng(buf, n) here calls advapi32's SystemFunction036
# (RtlGenRandom, the same CSPRNG; its length is 32 bits, plenty for Go's
# reads) and returns TRUE, as ProcessPrng always does.
# Built by .ci/windows with the system's GNU binutils (no mingw needed):
# as (ELF), objcopy -O pe-x86-64, ld -m i386pep --dll.
	.text
	.globl	ProcessPrng
ProcessPrng:
	subq	$40, %rsp	# the callee's 32-byte shadow space, stack 16-aligned
	# An absolute address, not %rip-relative: objcopy turns an ELF PC32
	# relocation into an ADDR32 one, which ld cannot fit.
	movabsq	$__imp_SystemFunction036, %rax
	callq	*(%rax)
	movl	$1, %eax
	addq	$40, %rsp
	retq
	.globl	DllMain
DllMain:
	movl	$1, %eax	# TRUE: loaded
	retq
