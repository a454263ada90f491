// Runs AMap's WeChat mini-program SDK (amap-wx.js) under node against `gazetteer serve`.
//
//   node amap_wx.js PATH/TO/amap-wx.130.js http://127.0.0.1:PORT
//
// The SDK is AMap's and is not ours to commit (it is on GitHub in many mini-program projects,
// e.g. libs/amap-wx.130.js); serve_clients.sh runs this only when AMAP_WX names a copy. `wx` is
// stubbed with node's http, rewriting https://restapi.amap.com to the base URL, as a
// mini-program's request domain would be changed. Prints `ok`/`FAIL` per call; exits 1 on a FAIL.
"use strict";
const http = require("http");
const vm = require("vm");
const fs = require("fs");

const [sdkPath, base] = process.argv.slice(2);
let failed = 0;

const wx = {
  request({ url, data, success, fail }) {
    const u = new URL(url.replace("https://restapi.amap.com", base.replace(/\/$/, "")));
    for (const [k, v] of Object.entries(data || {})) u.searchParams.set(k, v);
    http.get(u, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (body += c));
      res.on("end", () => {
        let parsed;
        try { parsed = JSON.parse(body); } catch (e) { return fail({ errMsg: "not JSON: " + body.slice(0, 80) }); }
        success({ data: parsed, statusCode: res.statusCode });   // a throw in success is the SDK's
      });
    }).on("error", (e) => fail({ errMsg: e.message }));
  },
  getLocation({ fail }) { fail({ errMsg: "no device location under node" }); },
  getStorage({ fail }) { fail && fail({}); },
  setStorage() {},
};

const sandbox = { wx, console, module: { exports: {} } };
sandbox.exports = sandbox.module.exports;
vm.createContext(sandbox);
vm.runInContext(fs.readFileSync(sdkPath, "utf8"), sandbox);
const AMapWX = sandbox.module.exports.AMapWX || sandbox.AMapWX;
const amap = new AMapWX({ key: "k" });

// Each call resolves with a detail string or rejects; uncaught throws inside the SDK's
// callbacks (a TypeError on a missing field) are caught per call.
function call(name, run) {
  return new Promise((resolve) => {
    const done = (ok, detail) => {
      process.removeListener("uncaughtException", onThrow);
      clearTimeout(timer);
      if (!ok) failed++;
      console.log(`${ok ? "ok  " : "FAIL"} amap-wx          ${name.padEnd(34)} ${String(detail).slice(0, 200)}`);
      resolve();
    };
    const onThrow = (e) => done(false, `${e.name}: ${e.message}`);
    const timer = setTimeout(() => done(false, "no callback in 10 s"), 10000);
    process.on("uncaughtException", onThrow);
    try {
      run((detail) => done(true, detail), (e) => done(false, JSON.stringify(e)));
    } catch (e) {
      done(false, `${e.name}: ${e.message}`);
    }
  });
}

function need(cond, what) { if (!cond) throw new Error(what); }

(async () => {
  await call("getRegeo", (ok, bad) => amap.getRegeo({
    location: "116.397477,39.908692",
    success(d) {
      const c = d[0].regeocodeData.addressComponent;
      try {
        need(c.district === "东城区", `district ${c.district}`);
        need(d[0].name.includes("东城区"), `name ${d[0].name}`);
        ok(`${d[0].name} / ${d[0].desc}`);
      } catch (e) { bad(e.message); }
    },
    fail: bad,
  }));
  await call("getPoiAround", (ok, bad) => amap.getPoiAround({
    location: "120.1551,30.2741", querykeywords: "银行",
    success(d) {
      try {
        need(d.markers.length > 0 && d.poisData.length === d.markers.length, `${d.markers.length} markers`);
        need(d.markers.every((m) => m.longitude > 119 && m.latitude > 29), "marker outside Hangzhou");
        ok(`${d.markers.length} markers: ${d.poisData[0].name}`);
      } catch (e) { bad(e.message); }
    },
    fail: bad,
  }));
  await call("getInputtips", (ok, bad) => amap.getInputtips({
    keywords: "灵隐", city: "杭州",
    success(d) {
      try {
        need(d.tips.some((t) => t.name.includes("灵隐")), JSON.stringify(d.tips.slice(0, 3)));
        ok(`${d.tips.length} tips: ${d.tips[0].name}`);
      } catch (e) { bad(e.message); }
    },
    fail: bad,
  }));
  await call("getGeo", (ok, bad) => amap.getGeo({
    options: { address: "北京市朝阳区阜通东大街6号" },
    success(d) {
      try {
        need(d.geocodes[0].adcode === "110105", `adcode ${d.geocodes[0].adcode}`);
        ok(`${d.geocodes[0].formatted_address} ${d.geocodes[0].location}`);
      } catch (e) { bad(e.message); }
    },
    fail: bad,
  }));
  process.exit(failed ? 1 : 0);
})();
