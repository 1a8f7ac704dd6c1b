import type { ComponentChildren, JSX } from "preact";
import { OPERATOR_GROUPS, OPERATOR_PAGES } from "../operator-pages.tsx";

/**
 * The operator's links in labelled groups (platform, compliance, finance) on a row of their own
 * below a merchant's pages, instead of one run of links that wrapped to three lines at 1280 px.
 * Every link stays a visible link (no menus to open); a group's label is read before its links.
 */
export function OperatorNav(props: {
  path: string;
  link: (props: { to: string; current: string; children: ComponentChildren }) => JSX.Element;
}) {
  const Link = props.link;
  return (
    <div class="nav-groups">
      {OPERATOR_GROUPS.map((group) => (
        <div key={group} class="nav-group">
          <span class="nav-group-label">{group}</span>
          {group === "Platform" && (
            <Link to="/merchants" current={props.path}>
              Merchants
            </Link>
          )}
          {OPERATOR_PAGES.filter((p) => p.group === group).map((p) => (
            <Link key={p.path} to={p.path} current={props.path}>
              {p.title}
            </Link>
          ))}
        </div>
      ))}
    </div>
  );
}
