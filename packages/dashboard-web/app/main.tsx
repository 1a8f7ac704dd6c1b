import { render } from "preact";

render(null, document.getElementById("root") as HTMLElement);
