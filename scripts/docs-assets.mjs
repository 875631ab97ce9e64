console.log("docs assets: pending");
