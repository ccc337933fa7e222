import Glibc

/// A libc function that Swift's Glibc module does not declare (it needs
/// _GNU_SOURCE, which the module does not set), looked up at run time;
/// nil where this libc lacks it.
package func libcFunction<Function>(_ name: String, as type: Function.Type) -> Function? {
    guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, name) else { return nil }
    return unsafeBitCast(symbol, to: type)
}
