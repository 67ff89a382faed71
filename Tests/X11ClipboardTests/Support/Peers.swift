import Foundation
import TestSupport

extension Peer {
    static let python = "/usr/bin/python3"

    /// Tk's clipboard_get, written out as UTF-8.
    static let tkRead = """
        import sys, tkinter
        root = tkinter.Tk()
        root.withdraw()
        sys.stdout.buffer.write(root.clipboard_get().encode('utf-8'))
        """

    /// The start of an INCR reader (python-xlib): asks for CLIPBOARD as UTF8_STRING into the
    /// property INCRTEST (`prop`) of its window `w`, checks the answer is INCR and deletes it to
    /// ask for the first chunk. Exits with "not-incr" otherwise.
    static let incrReaderStart = """
        import sys
        from Xlib import X, Xatom, display
        d = display.Display()
        w = d.screen().root.create_window(0, 0, 1, 1, 0, X.CopyFromParent, event_mask=X.PropertyChangeMask)
        clip = d.intern_atom('CLIPBOARD'); utf8 = d.intern_atom('UTF8_STRING')
        prop = d.intern_atom('INCRTEST'); incr = d.intern_atom('INCR')
        w.convert_selection(clip, utf8, prop, X.CurrentTime)
        while True:
            e = d.next_event()
            if e.type == X.SelectionNotify: break
        r = w.get_full_property(prop, X.AnyPropertyType)
        if r is None or r.property_type != incr:
            print('not-incr', flush=True); sys.exit(1)
        w.delete_property(prop); d.flush()

        """

    /// A reader that starts an INCR transfer of CLIPBOARD, takes the first chunk, prints
    /// "stalled", and then never asks for more.
    static let stallingReader =
        incrReaderStart + """
            import time
            while True:
                e = d.next_event()
                if e.type == X.PropertyNotify and e.atom == prop and e.state == X.PropertyNewValue: break
            print('stalled', flush=True)
            while True: time.sleep(60)
            """

    /// A reader that takes the first chunk, prints "paused", waits for a line on stdin, then
    /// reads the rest and writes every byte it received to stdout. Killed by SIGALRM after 60 s,
    /// so a transfer that never ends fails the test instead of hanging it.
    static let pausingReader =
        "import signal\nsignal.alarm(60)\n" + incrReaderStart + """
            data = bytearray(); paused = False
            while True:
                e = d.next_event()
                if not (e.type == X.PropertyNotify and e.atom == prop and e.state == X.PropertyNewValue): continue
                if not paused:
                    paused = True
                    print('paused', flush=True)
                    sys.stdin.readline()
                r = w.get_full_property(prop, X.AnyPropertyType, sizehint=1 << 20)
                w.delete_property(prop); d.flush()
                if r is None or len(r.value) == 0: break
                data += bytes(r.value)
            sys.stdout.buffer.write(data); sys.stdout.flush()
            """

    /// MULTIPLE with three pairs; prints each pair's answer as "target=property-or-None:value".
    static let multipleReader = """
        from Xlib import X, Xatom, display
        d = display.Display()
        w = d.screen().root.create_window(0, 0, 1, 1, 0, X.CopyFromParent, event_mask=X.PropertyChangeMask)
        a = lambda n: d.intern_atom(n)
        targets = ['UTF8_STRING', 'image/png', 'STRING']
        pairs = []
        for i, t in enumerate(targets): pairs += [a(t), a('P%d' % i)]
        w.change_property(a('M'), a('ATOM_PAIR'), 32, pairs)
        w.convert_selection(a('CLIPBOARD'), a('MULTIPLE'), a('M'), X.CurrentTime)
        while True:
            e = d.next_event()
            if e.type == X.SelectionNotify: break
        if e.property == X.NONE:
            print('refused'); raise SystemExit(1)
        back = w.get_full_property(a('M'), X.AnyPropertyType).value
        for i, t in enumerate(targets):
            p = back[2 * i + 1]
            if p == X.NONE: print('%s=None' % t); continue
            v = w.get_full_property(p, X.AnyPropertyType).value
            print('%s=%s' % (t, bytes(v).hex()))
        """
}

extension Peer {
    /// Owns CLIPBOARD_MANAGER and never answers anything (as xfce4-clipman does for SAVE_TARGETS).
    static let silentManager = """
        from Xlib import X, display
        d = display.Display()
        w = d.screen().root.create_window(0, 0, 1, 1, 0, X.CopyFromParent)
        w.set_selection_owner(d.intern_atom('CLIPBOARD_MANAGER'), X.CurrentTime)
        d.sync()
        print('owning', flush=True)
        while True:
            e = d.next_event()
            if e.type == X.SelectionRequest:  # say what was asked, never answer
                print('request', d.get_atom_name(e.target), e.time, d.get_atom_name(e.property) if e.property else 'None', flush=True)
        """

}
