// spawnlab_clone3: clone3(2) that runs a function in the child, x86_64.
//
//   long spawnlab_clone3(struct clone_args* args, size_t size,
//                        int (*fn)(void*), void* arg);
//
// With CLONE_VM the child starts on the stack named in `args`, where the
// caller's C frames do not exist, so it cannot return through C code: like
// glibc's internal __clone3, this calls fn(arg) on the new stack and exits the
// thread with its return value. Without CLONE_VM (stack 0) the child runs on a
// copy of the parent's stack and the same path works. Returns the child's pid
// to the parent, or -errno.

        .text
        .globl  spawnlab_clone3
        .type   spawnlab_clone3, @function
spawnlab_clone3:
        .cfi_startproc
        movq    %rcx, %r8               // arg: %rcx does not survive syscall
        movl    $435, %eax              // __NR_clone3
        syscall
        testq   %rax, %rax
        jz      1f                      // child
        ret                             // parent: pid or -errno
1:
        .cfi_undefined rip              // the child has no caller to unwind to
        xorl    %ebp, %ebp
        andq    $-16, %rsp              // the ABI's alignment at a call: without
                                        // CLONE_VM the child is on the parent's
                                        // stack, 8 bytes off (glibc does the same)
        movq    %r8, %rdi
        call    *%rdx                   // %rdx survives syscall
        movl    %eax, %edi
        movl    $60, %eax               // __NR_exit
        syscall
        hlt
        .cfi_endproc
        .size   spawnlab_clone3, .-spawnlab_clone3

        .section .note.GNU-stack,"",@progbits
