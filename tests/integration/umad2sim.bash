# Sourced by the ibsim tests: ibsim's client library in $umad2sim, on any Debian
# architecture, as vartree-harness finds it (VT_UMAD2SIM, else the multiarch directory of
# dpkg-architecture or the compiler, else where the package libumad2sim0 put it).
umad2sim=${VT_UMAD2SIM:-}
for ma in "$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)" "$(gcc -print-multiarch 2>/dev/null)"; do
	[ -z "$umad2sim" ] && [ -n "$ma" ] && [ -r "/usr/lib/$ma/umad2sim/libumad2sim.so" ] &&
		umad2sim=/usr/lib/$ma/umad2sim/libumad2sim.so
done
[ -n "$umad2sim" ] || umad2sim=$(dpkg -L libumad2sim0 2>/dev/null | grep -m1 '/libumad2sim\.so$')
