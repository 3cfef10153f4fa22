"""Unseen probe session 2: a React/TypeScript checkout form that double-submits on Safari."""
# ruff: noqa: E501  (scripted transcripts: tool output and code kept as the tools print them)

from __future__ import annotations

from benchmarks.unseen_log import Log, UnseenSession

_FORM = """import { FormEvent, KeyboardEvent, useState } from "react";
import { useDispatch, useSelector } from "react-redux";
import debounce from "lodash/debounce";
import { lookupAddress, saveAddress } from "../../api/client";
import { setAddress } from "./checkoutSlice";

export default function AddressForm() {
  const dispatch = useDispatch();
  const address = useSelector((s: RootState) => s.checkout.address);
  const [suggestions, setSuggestions] = useState<Suggestion[]>([]);

  const search = debounce(async (q: string) => {
    setSuggestions(await lookupAddress(q));
  }, 250);

  const submit = async () => {
    await saveAddress(address);
  };

  const handleKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "Enter") {
      e.preventDefault();
      void submit();
    }
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void submit();
  };

  return (
    <form onSubmit={onSubmit}>
      <input
        name="line1"
        value={address.line1}
        onKeyDown={handleKeyDown}
        onChange={(e) => {
          dispatch(setAddress({ ...address, line1: e.target.value }));
          search(e.target.value);
        }}
      />
      <SuggestionList items={suggestions} />
      <button type="submit">Continue</button>
    </form>
  );
}
"""

_CLIENT = """export async function saveAddress(address: Address): Promise<void> {
  const res = await fetch("/api/checkout/address", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(address),
  });
  if (!res.ok) throw new ApiError(res.status);
}

export async function lookupAddress(q: string): Promise<Suggestion[]> {
  const res = await fetch(`/api/address/lookup?q=${encodeURIComponent(q)}`);
  return res.ok ? res.json() : [];
}
"""

_SLICE = """import { createSlice, PayloadAction } from "@reduxjs/toolkit";

const checkoutSlice = createSlice({
  name: "checkout",
  initialState: { address: emptyAddress, step: "address" as Step },
  reducers: {
    setAddress(state, action: PayloadAction<Address>) {
      state.address = action.payload;
    },
    setStep(state, action: PayloadAction<Step>) {
      state.step = action.payload;
    },
  },
});

export const { setAddress, setStep } = checkoutSlice.actions;
export default checkoutSlice.reducer;
"""

_SUMMARY = """export function SummaryPanel() {
  const address = useSelector((s: RootState) => s.checkout.address);
  const cart = useCart();
  return (
    <aside>
      <AddressLines address={address} />
      <CartTotals cart={cart} />
    </aside>
  );
}
"""

_HOOK = """import { useEffect, useState } from "react";

/** The value, once it has stopped changing for `delay` ms. */
export function useDebouncedValue<T>(value: T, delay: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setSettled(value), delay);
    return () => clearTimeout(id);
  }, [value, delay]);
  return settled;
}
"""

_QA = """# Checkout QA checklist

- [ ] Address: Enter in line 1 submits once
- [ ] Address: suggestions appear after typing 3 characters
- [ ] Payment: 3-D Secure challenge returns to the summary
"""


def build() -> UnseenSession:
    """The TypeScript session: three segments, 26 probes."""
    s = Log("typescript")
    s.user(
        "QA says the address step in checkout double-submits on Safari when you press Enter. "
        "This is storefront-web (React 18 + Vite). The form is "
        "src/features/checkout/AddressForm.tsx."
    )
    s.bash("node --version && npx vite --version", "v20.11.1\nvite/5.2.8 linux-x64 node-v20.11.1")
    s.read("src/features/checkout/AddressForm.tsx", _FORM)
    s.grep(
        "submit\\(",
        [
            "src/features/checkout/AddressForm.tsx:16:  const submit = async () => {",
            "src/features/checkout/AddressForm.tsx:23:      void submit();",
            "src/features/checkout/AddressForm.tsx:29:    void submit();",
        ],
        path="src/features/checkout",
    )
    s.bash(
        "npx vitest run src/features/checkout",
        " FAIL  src/features/checkout/AddressForm.test.tsx > AddressForm > submits once on Enter\n"
        'AssertionError: expected "saveAddress" to be called 1 times, but got 2 times\n'
        " Test Files  1 failed | 3 passed (4)\n      Tests  1 failed | 17 passed (18)",
        1,
        text="Reproducing with the existing test first.",
    )
    s.say(
        "Cause: `handleKeyDown` calls `submit()` on Enter and the form's own onSubmit calls it "
        "again. Chrome hides it because the Enter keydown during IME composition has "
        "isComposing set and the browser swallows the native submit; Safari reports "
        "isComposing false after composition ends, so both paths fire."
    )
    s.probe("fact", "handleKeyDown", "isComposing")
    s.user(
        "OK. Drop the custom keydown handler completely and let the form submit natively; a "
        "hand-rolled Enter handler is exactly what breaks IME input."
    )
    s.probe("decision", "keydown handler", "IME")
    s.edit(
        "src/features/checkout/AddressForm.tsx",
        "  const handleKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {\n"
        '    if (e.key === "Enter") {\n      e.preventDefault();\n      void submit();\n    }\n  };\n\n',
        "",
    )
    s.edit(
        "src/features/checkout/AddressForm.tsx",
        "        onKeyDown={handleKeyDown}\n",
        "",
    )
    s.probe("file change", "src/features/checkout/AddressForm.tsx", "handleKeyDown")
    s.bash(
        "npx vitest run src/features/checkout",
        " Test Files  4 passed (4)\n      Tests  18 passed (18)",
        0,
    )
    s.probe("fact", "npx vitest run src/features/checkout", "exit 0", stale="exit 1")
    s.user(
        "While you're in there, the lookup fires on every keystroke. The provider (Loqate) "
        "caps us at 10 requests per second per session."
    )
    s.probe("fact", "10 requests per second")
    s.say(
        "Two ways to debounce it: (a) keep lodash's debounce but memoise it with useMemo, or "
        "(b) a small useDebouncedValue hook of our own."
    )
    s.user("b - I don't want lodash back in the bundle")
    s.probe("decision", "useDebouncedValue", "lodash")
    s.user(
        "And only look up once there are at least 3 characters, since Loqate bills us per lookup."
    )
    s.probe("decision", "3 characters", "bills")
    s.write("src/hooks/useDebouncedValue.ts", _HOOK)
    s.probe("file change", "src/hooks/useDebouncedValue.ts", "created")
    s.user(
        "Please don't use default exports in new files, we're moving everything to named exports."
    )
    s.probe("preference", "default exports")
    s.edit(
        "src/features/checkout/AddressForm.tsx",
        'import debounce from "lodash/debounce";\n',
        'import { useDebouncedValue } from "../../hooks/useDebouncedValue";\n',
    )
    s.edit(
        "src/features/checkout/AddressForm.tsx",
        "  const search = debounce(async (q: string) => {\n"
        "    setSuggestions(await lookupAddress(q));\n  }, 250);\n",
        "  const query = useDebouncedValue(address.line1, 250);\n"
        "  useEffect(() => {\n    if (query.length >= 3) void lookupAddress(query).then(setSuggestions);\n"
        "  }, [query]);\n",
    )
    s.bash(
        "npx tsc --noEmit",
        "src/features/checkout/AddressForm.tsx(33,59): error TS2345: Argument of type "
        "'string | undefined' is not assignable to parameter of type 'string'.",
        2,
    )
    s.say("`address.line1` is optional in the Address type; defaulting it to an empty string.")
    s.edit(
        "src/features/checkout/AddressForm.tsx",
        "useDebouncedValue(address.line1, 250)",
        'useDebouncedValue(address.line1 ?? "", 250)',
    )
    s.bash("npx tsc --noEmit", "", 0)
    s.probe("fact", "npx tsc --noEmit", "exit 0", stale="exit 2")
    s.bash(
        "npx vite build",
        "vite v5.2.8 building for production...\n✓ 412 modules transformed.\n"
        "dist/index.html                   0.61 kB │ gzip:  0.38 kB\n"
        "dist/assets/index-4f9c2b1e.css   18.02 kB │ gzip:  4.11 kB\n"
        "dist/assets/index-9a7d3c55.js   212.48 kB │ gzip: 68.91 kB\n✓ built in 4.87s",
        0,
    )
    s.probe("fact", "68.91 kB")
    s.read("src/features/checkout/checkoutSlice.ts", _SLICE)
    s.read("src/features/checkout/SummaryPanel.tsx", _SUMMARY)
    s.user(
        "Keep the form state in Redux for now, the summary panel reads the address from the store."
    )
    s.user("TODO: add the Safari Enter case to the QA checklist in docs/qa/checkout.md.")
    s.user("Also, I always want tests colocated next to the component, not under __tests__.")
    s.probe("preference", "colocated")
    s.write(
        "src/features/checkout/AddressForm.test.tsx",
        'import { render, screen } from "@testing-library/react";\n'
        'import userEvent from "@testing-library/user-event";\n'
        'import { AddressForm } from "./AddressForm";\n\n'
        'it("submits once on Enter after composition", async () => {\n'
        "  render(<AddressForm />);\n"
        '  await userEvent.type(screen.getByRole("textbox"), "1 High St{enter}");\n'
        "  expect(saveAddress).toHaveBeenCalledTimes(1);\n});\n",
        new=False,
    )
    s.bash(
        "npx vitest run src/features/checkout",
        " Test Files  4 passed (4)\n      Tests  19 passed (19)",
        0,
    )
    s.bash("npx eslint src/features/checkout src/hooks", "", 0)
    s.bash("git add -A && git commit -qm 'checkout: submit the address form once on Enter'", "", 0)
    s.cut()

    s.user(
        "Next problem on the same form: Safari autofill. Picking a saved address fills the "
        "fields but the suggestions and validation never notice."
    )
    s.bash(
        "node scripts/traffic.mjs --page checkout --by browser",
        "Safari iOS 17      31.2%\nChrome Android     28.7%\nChrome desktop     22.9%\n"
        "Safari macOS        9.8%\nother               7.4%",
        0,
        text="Checking how much traffic this affects.",
    )
    s.probe("fact", "31.2%")
    s.say(
        "Safari autofill writes the value without dispatching an input event, so React's "
        "onChange never runs. The known workaround is an onAnimationStart listener keyed to "
        "a keyframe on :-webkit-autofill; react-hook-form does the same."
    )
    s.probe("fact", "onAnimationStart", "webkit-autofill")
    s.read("src/styles/checkout.css", ".address input {\n  padding: 0.5rem;\n}\n\n/* autofill */\n")
    s.edit(
        "src/styles/checkout.css",
        "/* autofill */\n",
        "@keyframes onAutoFillStart {\n  from {}\n  to {}\n}\n"
        "input:-webkit-autofill {\n  animation-name: onAutoFillStart;\n}\n",
    )
    s.probe("file change", "src/styles/checkout.css", "+7 -1")
    s.edit(
        "src/features/checkout/AddressForm.tsx",
        '        name="line1"\n',
        '        name="line1"\n'
        "        onAnimationStart={(e) => {\n"
        '          if (e.animationName === "onAutoFillStart") syncFromDom(e.currentTarget.form);\n'
        "        }}\n",
    )
    s.read("src/api/client.ts", _CLIENT)
    s.edit(
        "src/api/client.ts",
        "  if (!res.ok) throw new ApiError(res.status);\n}",
        "  if (res.status >= 500 && attempt < 3) return saveAddress(address, attempt + 1);\n"
        "  if (!res.ok) throw new ApiError(res.status);\n}",
        text="Adding a retry for 5xx while I'm here, QA saw a 502 once.",
    )
    s.user(
        "No retries on that POST please, it isn't idempotent and we'd create duplicate "
        "addresses. Revert client.ts."
    )
    s.probe("decision", "retries", "idempotent")
    s.bash("git restore src/api/client.ts", "", 0)
    s.probe("file change", "src/api/client.ts", "reverted", stale="edited")
    s.grep(
        "LegacyAddressForm",
        ["src/features/checkout/LegacyAddressForm.tsx:12:export function LegacyAddressForm() {"],
    )
    s.say("LegacyAddressForm is not imported anywhere since the router change; removing it.")
    s.bash("rm src/features/checkout/LegacyAddressForm.tsx && git add -A", "", 0)
    s.probe("file change", "src/features/checkout/LegacyAddressForm.tsx", "deleted")
    s.user(
        "Later we should make the postcode field accept lowercase UK postcodes, people type "
        "'sw1a 1aa' all the time. Not in this PR."
    )
    s.probe("todo", "lowercase UK postcodes")
    s.user("Moving the checkout e2e tests from Cypress to Playwright is a separate PR too.")
    s.probe("todo", "Playwright")
    s.bash(
        "npx vitest run src/features/checkout",
        " FAIL  src/features/checkout/AddressForm.test.tsx > autofill > syncs the form\n"
        "ReferenceError: syncFromDom is not defined\n"
        " Test Files  1 failed | 3 passed (4)",
        1,
    )
    s.edit(
        "src/features/checkout/AddressForm.tsx",
        'import { useDebouncedValue } from "../../hooks/useDebouncedValue";\n',
        'import { useDebouncedValue } from "../../hooks/useDebouncedValue";\n'
        'import { syncFromDom } from "./syncFromDom";\n',
    )
    s.write(
        "src/features/checkout/syncFromDom.ts",
        "export function syncFromDom(form: HTMLFormElement | null): Partial<Address> {\n"
        "  if (!form) return {};\n  const data = new FormData(form);\n"
        '  return { line1: String(data.get("line1") ?? ""), city: String(data.get("city") ?? "") };\n}\n',
    )
    s.bash(
        "npx vitest run src/features/checkout",
        " Test Files  4 passed (4)\n      Tests  21 passed (21)",
        0,
    )
    s.user("FYI my review slot is Thursday afternoon, so have the PR up by then.")
    s.probe("preference", "Thursday afternoon")
    s.read("docs/qa/checkout.md", _QA)
    s.edit(
        "docs/qa/checkout.md",
        "- [ ] Address: suggestions appear after typing 3 characters\n",
        "- [ ] Address: suggestions appear after typing 3 characters\n"
        "- [ ] Address (Safari): Enter after picking a suggestion submits once\n",
    )
    s.say("The QA checklist now has the Safari Enter case, so that item is done.")
    s.probe("todo", "Safari Enter case", "done", stale="open")
    s.user(
        "The city field probably has the same autofill problem. Leave a TODO and handle it "
        "once this lands."
    )
    s.probe("todo", "city field")
    s.user("And never commit with --no-verify, even when the hook is slow.")
    s.probe("preference", "--no-verify")
    s.bash("git add -A && git commit -qm 'checkout: notice Safari autofill'", "", 0)
    s.cut()

    s.user(
        "Re-render check: the whole checkout re-renders on every keystroke because of the "
        "store. Let's move the address out of Redux after all: local useState in a small "
        "context, since only the summary panel reads it and the slice re-renders everything."
    )
    s.probe("decision", "useState", "re-render", stale="state in Redux")
    s.write(
        "src/features/checkout/AddressContext.tsx",
        'import { createContext, useContext, useState } from "react";\n\n'
        "const AddressContext = createContext<[Address, (a: Address) => void] | null>(null);\n\n"
        "export function AddressProvider({ children }: { children: React.ReactNode }) {\n"
        "  const state = useState<Address>(emptyAddress);\n"
        "  return <AddressContext.Provider value={state}>{children}</AddressContext.Provider>;\n}\n\n"
        "export function useAddress() {\n  const value = useContext(AddressContext);\n"
        '  if (!value) throw new Error("useAddress outside AddressProvider");\n  return value;\n}\n',
    )
    s.probe("file change", "src/features/checkout/AddressContext.tsx", "created")
    s.edit(
        "src/features/checkout/SummaryPanel.tsx",
        "  const address = useSelector((s: RootState) => s.checkout.address);",
        "  const [address] = useAddress();",
    )
    s.probe("file change", "src/features/checkout/SummaryPanel.tsx", "+1 -1")
    s.edit(
        "src/features/checkout/checkoutSlice.ts",
        '  initialState: { address: emptyAddress, step: "address" as Step },',
        '  initialState: { step: "address" as Step },',
    )
    s.bash(
        "npx tsc --noEmit",
        "src/features/checkout/checkoutSlice.ts(7,13): error TS2339: Property 'address' does "
        "not exist on type 'WritableDraft<{ step: Step; }>'.",
        2,
    )
    s.edit(
        "src/features/checkout/checkoutSlice.ts",
        "    setAddress(state, action: PayloadAction<Address>) {\n"
        "      state.address = action.payload;\n    },\n",
        "",
    )
    s.bash("npx tsc --noEmit", "", 0)
    s.bash("npx vitest run", " Test Files  38 passed (38)\n      Tests  264 passed (264)", 0)
    s.bash(
        "npx vite build",
        "✓ 409 modules transformed.\ndist/assets/index-2b8e61f0.js   209.93 kB │ gzip: 68.12 kB\n✓ built in 4.61s",
        0,
    )
    s.say("The bundle is slightly smaller too, now that the slice has no address reducer.")
    s.user("nice. run the linter and the e2e smoke test before committing")
    s.bash("npx eslint src", "", 0)
    s.bash(
        "npx cypress run --spec cypress/e2e/checkout-smoke.cy.ts",
        "  Running:  checkout-smoke.cy.ts\n  ✓ completes checkout with a saved address (6124ms)\n"
        "  1 passing (7s)",
        0,
    )
    s.bash(
        "git add -A && git commit -qm 'checkout: address state in a context, not the store'", "", 0
    )
    s.user("Can you summarise what's left for the PR description?")
    s.say(
        "This branch: one submit on Enter, a debounced lookup without lodash, Safari autofill "
        "noticed, and the address moved out of Redux into AddressContext."
    )
    s.user("Good, push it.")
    s.bash(
        "git push -u origin fix/safari-address",
        " * [new branch]      fix/safari-address -> fix/safari-address",
        0,
    )
    return s.session
