	.text
	.globl	ProcessPrng
ProcessPrng:
	subq	$40, %rsp
	movabsq	$__imp_SystemFunction036, %rax
	callq	*(%rax)
	movl	$1, %eax
	addq	$40, %rsp
	retq
	.globl	DllMain
DllMain:
	movl	$1, %eax
	retq
