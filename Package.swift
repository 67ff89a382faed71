// swift-tools-version:6.0
import PackageDescription

/// Settings shared by every Swift target: existential `any` spelled out, and imports internal
/// unless written `public import`. The Swift 6 language mode (strict concurrency) is the whole
/// package's (`swiftLanguageModes` below).
let strictSwift: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "userdebug",
    products: [
        .executable(name: "userdebug", targets: ["userdebug"]),
        .library(name: "UserDebugKit", targets: ["UserDebugKit"]),
        .library(name: "X11Clipboard", targets: ["X11Clipboard"]),
        .library(name: "WaylandClipboard", targets: ["WaylandClipboard"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // Content-Encoding gzip and deflate (zlib), br (the brotli decoder): bodies are decoded
        // before redaction. Static archives exist in both -dev packages for -static-executable.
        .systemLibrary(
            name: "CZlib",
            path: "Sources/CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CBrotli",
            path: "Sources/CBrotli",
            providers: [.apt(["libbrotli-dev"])]
        ),
        // What the C of every clipboard backend does the same way, written once: the clock, waits
        // with deadlines, the error text, the resident owner's socket (its abstract address, the
        // same-user/same-mount-namespace peer check, the header/bytes/reply exchange), and
        // USERDEBUG_DISABLE read once for the speed mechanisms written in C (ud_disable.h). And
        // for ChildProcess (UserDebugKit), posix_spawn's close-from action (ud_spawn.h), which
        // glibc declares only under _GNU_SOURCE.
        .target(
            name: "CShared",
            path: "Sources/CShared"
        ),
        // The detached-owner rules (fork strategies, detaching), shared by every clipboard backend.
        .target(
            name: "COwnerProcess",
            path: "Sources/COwnerProcess"
        ),
        // The X11 clipboard in C over libxcb: connect with a deadline, own and serve a selection
        // (the owner process and the daemon's in-process owner), paste, key grabs. Xau and Xdmcp
        // are libxcb's own dependencies, named for the -static-executable link.
        .target(
            name: "CX11",
            dependencies: ["COwnerProcess", "CShared"],
            path: "Sources/CX11",
            linkerSettings: [
                .linkedLibrary("xcb"),
                .linkedLibrary("Xau"),
                .linkedLibrary("Xdmcp"),
            ]
        ),
        // The Wayland wire protocol and the data-control interfaces, written in C without
        // libwayland-client (Debian ships no static archive of it; see Sources/CWayland/include/cwl.h).
        // Its protocol tables are generated from the XML: Scripts/gen-wayland-protocol.py.
        .target(
            name: "CWayland",
            dependencies: ["COwnerProcess", "CShared"],
            path: "Sources/CWayland"
        ),
        .target(
            name: "UserDebugKit",
            dependencies: ["CSQLite", "CZlib", "CBrotli", "CShared"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "X11Clipboard",
            dependencies: ["CX11", "UserDebugKit"],
            swiftSettings: strictSwift
        ),
        // Desktop notifications over the session bus: a D-Bus client of our own (no libdbus, which
        // has no static archive for the static `userdebug` binary): the outcome of a hotkey's or
        // the menu's action, and doctor's check of the notification server.
        .target(
            name: "DesktopNotify",
            swiftSettings: strictSwift
        ),
        .target(
            name: "WaylandClipboard",
            dependencies: ["CWayland", "UserDebugKit"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "UserDebugCLI",
            dependencies: ["UserDebugKit", "X11Clipboard", "WaylandClipboard", "DesktopNotify"],
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "userdebug",
            dependencies: ["UserDebugCLI"],
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "userdebug-bench",
            dependencies: ["UserDebugKit"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "UserDebugKitTests",
            dependencies: ["UserDebugKit"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "TestSupport",
            dependencies: ["X11Clipboard", "WaylandClipboard", "UserDebugKit"],
            path: "Tests/TestSupport",
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "X11ClipboardTests",
            dependencies: ["X11Clipboard", "UserDebugKit", "TestSupport"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "WaylandClipboardTests",
            dependencies: ["WaylandClipboard", "UserDebugKit", "TestSupport"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "UserDebugCLITests",
            dependencies: ["UserDebugCLI", "UserDebugKit", "TestSupport"],
            swiftSettings: strictSwift
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The URLSession capture hook: its own library (FoundationNetworking cannot be linked into the
// static `userdebug` executable, and the tool does not need it), all of it inside `#if DEBUG`.
package.products.append(.library(name: "UserDebugCapture", targets: ["UserDebugCapture"]))
package.targets.append(contentsOf: [
    .target(
        name: "UserDebugCapture",
        dependencies: ["UserDebugKit"],
        swiftSettings: strictSwift
    ),
    .testTarget(
        name: "UserDebugCaptureTests",
        dependencies: ["UserDebugCapture", "UserDebugKit"],
        swiftSettings: strictSwift
    ),
])

// The popup debug menu (`userdebug menu --popup`): its own executable, so the Xlib, Xft and
// fontconfig it links stay off the hotkey path of `userdebug`. Every library is listed, the
// dependencies of freetype and fontconfig too, so `-static-executable` links it from the
// static archives. CXft only brings Xft's include path (xft.pc: freetype's headers).
package.products.append(.executable(name: "userdebug-popup", targets: ["userdebug-popup"]))
package.targets.append(contentsOf: [
    .systemLibrary(
        name: "CXft",
        path: "Sources/CXft",
        pkgConfig: "xft",
        providers: [.apt(["libxft-dev"])]
    ),
    .target(
        name: "CPopup",
        dependencies: ["CXft"],
        // The libraries are named in include/module.modulemap, in the order a static link needs.
        path: "Sources/CPopup"
    ),
    .executableTarget(
        name: "userdebug-popup",
        dependencies: ["CPopup", "UserDebugCLI", "UserDebugKit"],
        path: "Sources/UserDebugPopup",
        swiftSettings: strictSwift
    ),
    .testTarget(
        name: "UserDebugPopupTests",
        dependencies: ["userdebug-popup", "UserDebugKit"],
        swiftSettings: strictSwift
    ),
])
